/**
 * A bulk load (`docchat documents add DIR --wait`: small files parsed in batches, rows committed in groups,
 * trained in the same process) killed with SIGKILL midway loses nothing it had written and leaves no
 * half-indexed document; adding the folder again and starting the server completes everything, each file once.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkInvariants } from "../../scripts/lib/crash-cycles.ts";
import { freePort } from "../helpers/free-port.ts";
import { runCliProcess, tempDir } from "../helpers/server.ts";

const root = tempDir("docchat-bulk-crash-");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const data = join(root, "data");
const dbPath = join(data, "docchat.db");
const MAIN = join(import.meta.dir, "../../src/main.ts");
const env = { DOCCHAT_EMBEDDER: "none", DOCCHAT_LOG_LEVEL: "silent" };
const FILES = 1500;

const rows = () => {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.query<{ id: string; name: string; status: string }, []>("SELECT id, name, status FROM documents").all();
  } finally {
    db.close();
  }
};

test("kill -9 during a bulk load keeps every written document whole, and a second run completes the rest once each", async () => {
  const dir = join(root, "docs");
  mkdirSync(dir);
  for (let i = 0; i < FILES; i++)
    writeFileSync(join(dir, `note-${i}.txt`), `Note ${i}. The ferry to island ${i % 41} leaves pier ${i % 7} at ${i % 12} o'clock.`);
  const json = async (args: string[]) => JSON.parse((await runCliProcess([...args, "--json", "--data", data], env)).stdout);
  await json(["account", "create", "--email", "bulk@example.com", "--tokens", "1000"]);
  const dep = (await json(["deployment", "create", "--account", "bulk@example.com", "--name", "Bulk"])).id as string;

  const load = Bun.spawn([process.execPath, MAIN, "documents", "add", dep, dir, "--wait", "--json", "--data", data], {
    env: { ...process.env, ...env },
    stdout: "ignore",
    stderr: "ignore",
  });
  // killed once some rows are written and (most likely) some are being trained
  for (let i = 0; i < 600; i++) {
    await Bun.sleep(25);
    try {
      if (rows().length >= 200) break;
    } catch {}
  }
  load.kill("SIGKILL");
  await load.exited;
  const written = rows();
  expect(written.length).toBeGreaterThan(0);
  expect(checkInvariants(dbPath, null, written.map((d) => d.id), false)).toEqual([]);

  // the same folder again: what was written is unchanged, the rest is added
  const again = await runCliProcess(["documents", "add", dep, dir, "--json", "--data", data], env);
  expect(again.code).toBe(0);
  // the server resumes training interrupted by the kill
  const port = await freePort();
  const server = Bun.spawn([process.execPath, MAIN, "serve", "--data", data, "--port", String(port)], {
    env: { ...process.env, ...env },
    stdout: "ignore",
    stderr: "ignore",
  });
  try {
    for (let i = 0; i < 1200; i++) {
      // a read while the server opens the file (and rebuilds its WAL index) may find it busy: look again
      const all = (() => {
        try {
          return rows();
        } catch {
          return [];
        }
      })();
      if (all.length === FILES && all.every((d) => d.status === "completed")) break;
      await Bun.sleep(50);
    }
  } finally {
    server.kill("SIGTERM");
    await server.exited;
  }
  const final = rows();
  expect(new Set(final.map((d) => d.name)).size).toBe(FILES);
  expect(final).toHaveLength(FILES);
  expect(final.filter((d) => d.status !== "completed")).toEqual([]);
  expect(checkInvariants(dbPath, null, written.map((d) => d.id), true)).toEqual([]);
}, 180_000);
