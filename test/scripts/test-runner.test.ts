import { describe, expect, test } from "bun:test";
import { ensureTools } from "../../scripts/lib/ensure-tools.ts";
import { TEST_TOOLS } from "../../scripts/test.ts";

const MISSING = { path: "/nonexistent/chromium", pkg: "chromium", usedBy: "the browser tests" };

describe("bun run test makes sure every test can run", () => {
  test("Chromium and curl are among the tools it ensures", () => {
    expect(TEST_TOOLS.map((t) => t.pkg)).toEqual(["chromium", "curl"]);
  });

  test("tools that are installed need nothing", () => {
    expect(ensureTools([{ path: process.execPath, pkg: "bun", usedBy: "x" }], { install: () => false })).toBeNull();
  });

  test("a missing tool without root stops the run with the command to install it", () => {
    expect(ensureTools([MISSING], { root: false })).toContain("sudo apt-get install -y chromium");
  });

  test("as root it installs with apt-get, and an install that leaves the tool missing stops the run loudly", () => {
    const ran: string[] = [];
    const problem = ensureTools([MISSING], { root: true, aptGet: "/usr/bin/apt-get", install: (cmd) => ran.push(cmd.join(" ")) > 0 });
    expect(ran).toEqual(["apt-get update -qq", "apt-get install -y -qq --no-install-recommends chromium"]);
    expect(problem).toContain("still missing");
  });

  test("a failing apt-get stops the run", () => {
    expect(ensureTools([MISSING], { root: true, aptGet: "/usr/bin/apt-get", install: () => false })).toContain(
      "could not install chromium",
    );
  });

  test("without apt-get it says what to install", () => {
    expect(ensureTools([MISSING], { root: true, aptGet: null })).toContain("apt-get is not available");
  });
});
