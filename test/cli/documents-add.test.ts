import { afterAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCliProcess, tempDir } from "../helpers/server.ts";

const root = tempDir("docchat-bulk-");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const data = join(root, "data");
const env = { DOCCHAT_EMBEDDER: "none", DOCCHAT_LOG_LEVEL: "silent" };

async function cliJson(args: string[]) {
  const r = await runCliProcess([...args, "--json", "--data", data], env);
  return { ...r, json: JSON.parse(r.stdout) as Record<string, unknown> };
}

test("documents add of a folder tree of 5,000 files with --recursive prints one complete JSON object through a pipe", async () => {
  const docs = join(root, "docs");
  for (let i = 0; i < 5000; i++) {
    const dir = join(docs, `batch-${Math.floor(i / 1000)}`, i % 2 === 0 ? "even" : "odd");
    if (i % 1000 < 2) mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `abstract-${i}.txt`),
      `Abstract ${i}. The protein marker P${i} was measured in cohort ${i % 37} and found elevated.`,
    );
  }
  writeFileSync(join(docs, ".DS_Store"), "junk");
  const email = `bulk-${Date.now()}@example.com`;
  await cliJson(["account", "create", "--email", email, "--tokens", "1000"]);
  const dep = (await cliJson(["deployment", "create", "--account", email, "--name", "Bulk"])).json;
  const started = performance.now();
  const r = await runCliProcess(["documents", "add", dep.id as string, docs, "--recursive", "--wait", "--json", "--data", data], env);
  const seconds = (performance.now() - started) / 1000;
  expect(r.stdout.length).toBeGreaterThan(131_072);
  const out = JSON.parse(r.stdout) as { documents: { status: string; name: string }[]; training_status: string };
  expect(r.code).toBe(0);
  expect(out.documents).toHaveLength(5000);
  expect(new Set(out.documents.map((d) => d.status))).toEqual(new Set(["completed"]));
  expect(out.training_status).toBe("completed");
  expect(r.stdout.trim().split("\n")).toHaveLength(1);
  console.info(
    `documents add: 5,000 files in ${seconds.toFixed(1)} s (${(5000 / seconds).toFixed(0)} documents/s, parse + train, this machine)`,
  );

  // re-adding the same folder changes nothing, and a file named directly is added even without --recursive
  const again = await cliJson(["documents", "add", dep.id as string, join(docs, "batch-0", "even", "abstract-0.txt")]);
  expect((again.json.documents as { unchanged: boolean }[])[0]?.unchanged).toBe(true);
}, 240_000);

test("a folder without --recursive adds only the files directly inside it, and a missing path is reported", async () => {
  const dir = join(root, "flat");
  mkdirSync(join(dir, "sub"), { recursive: true });
  writeFileSync(join(dir, "top.txt"), "Top level document about lighthouses.");
  writeFileSync(join(dir, "sub", "deep.txt"), "Nested document about harbours.");
  const email = `flat-${Date.now()}@example.com`;
  await cliJson(["account", "create", "--email", email, "--tokens", "1000"]);
  const dep = (await cliJson(["deployment", "create", "--account", email, "--name", "Flat"])).json;
  const r = await cliJson(["documents", "add", dep.id as string, dir, join(root, "nope.txt"), "--no-train"]);
  expect(r.code).toBe(1);
  const docs = r.json.documents as { name?: string; error?: { code: string } }[];
  expect(docs.map((d) => d.name ?? d.error?.code)).toEqual(["not_found", "top.txt"]);
});
