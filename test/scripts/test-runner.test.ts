import { describe, expect, test } from "bun:test";
import { ensureChromium } from "../../scripts/test.ts";

const MISSING = "/nonexistent/chromium";

describe("bun run test makes sure the browser tests can run", () => {
  test("an installed Chromium needs nothing", () => {
    expect(ensureChromium({ path: process.execPath, install: () => false })).toBeNull();
  });

  test("a missing Chromium without root stops the run with the command to install it", () => {
    expect(ensureChromium({ path: MISSING, root: false })).toContain("sudo apt-get install -y chromium");
  });

  test("as root it installs Chromium with apt-get, and a failed install stops the run loudly", () => {
    const ran: string[] = [];
    const problem = ensureChromium({
      path: MISSING,
      root: true,
      aptGet: "/usr/bin/apt-get",
      install: (cmd) => ran.push(cmd.join(" ")) > 0,
    });
    expect(ran).toEqual(["apt-get update -qq", "apt-get install -y -qq --no-install-recommends chromium"]);
    // apt-get "succeeded" but nothing appeared at the path: that is a failure, not a skip.
    expect(problem).toContain("could not install Chromium");
  });

  test("without apt-get it says what to install", () => {
    expect(ensureChromium({ path: MISSING, root: true, aptGet: null })).toContain("apt-get is not available");
  });
});
