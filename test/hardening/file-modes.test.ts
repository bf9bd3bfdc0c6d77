import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { runCliProcess, startTestServer, tempDir } from "../helpers/server.ts";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});
const modeOf = (p: string) => statSync(p).mode & 0o777;

describe("the data dir and everything in it that holds data is private", () => {
  test("a new data dir is 0700 and the database, its WAL and shared memory, and a backup are 0600", async () => {
    const root = tempDir("docchat-modes-");
    roots.push(root);
    const data = join(root, "data");
    const srv = await startTestServer({}, { dataDir: data });
    try {
      await srv.seed();
      const db = join(data, "docchat.db");
      expect(modeOf(data)).toBe(0o700);
      for (const f of [db, `${db}-wal`, `${db}-shm`]) {
        expect(existsSync(f)).toBe(true);
        expect(modeOf(f)).toBe(0o600);
      }
      const backup = join(root, "backup.db");
      const r = await runCliProcess(["backup", backup, "--data", data], { DOCCHAT_LOG_LEVEL: "warn", DOCCHAT_EMBEDDER: "none" });
      expect(r.code).toBe(0);
      expect(modeOf(backup)).toBe(0o600);
    } finally {
      await srv.stop();
    }
  });

  test("an existing world-readable database is made private when opened, and a restored one is private too", async () => {
    const root = tempDir("docchat-modes-old-");
    roots.push(root);
    const env = { DOCCHAT_LOG_LEVEL: "warn", DOCCHAT_EMBEDDER: "none" };
    expect((await runCliProcess(["account", "create", "--email", "old@example.com", "--data", root], env)).code).toBe(0);
    const db = join(root, "docchat.db");
    chmodSync(db, 0o644);
    expect((await runCliProcess(["account", "create", "--email", "new@example.com", "--data", root], env)).code).toBe(0);
    expect(modeOf(db)).toBe(0o600);
    const backup = join(root, "b.db");
    expect((await runCliProcess(["backup", backup, "--data", root], env)).code).toBe(0);
    chmodSync(backup, 0o644);
    const restored = await runCliProcess(["restore", backup, "--data", root], env);
    expect(restored.code).toBe(0);
    expect(modeOf(db)).toBe(0o600);
  });
});
