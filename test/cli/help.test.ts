import { expect, test } from "bun:test";
import { runCliProcess } from "../helpers/server.ts";

test("a subcommand's --help lists its own options and the everyday ones, not the server's ~20 settings", async () => {
  const r = await runCliProcess(["account", "create", "--help"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("--email VALUE");
  expect(r.stdout).toContain("--data VALUE");
  expect(r.stdout).toContain("--json");
  expect(r.stdout).not.toContain("--trusted-proxy");
  expect(r.stdout).not.toContain("--embeddings-url");
  expect(r.stdout).toContain("docchat serve --help");
  expect(r.stdout.split("\n").length).toBeLessThan(25);
});

test("serve --help lists every setting that has a flag", async () => {
  const r = await runCliProcess(["serve", "--help"]);
  expect(r.code).toBe(0);
  for (const flag of ["--port", "--host", "--trusted-proxy", "--embeddings-url", "--rerank-url", "--database"])
    expect(r.stdout).toContain(flag);
});
