import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServeProcess } from "../helpers/serve-process.ts";
import { cliJson, runCliProcess, tempDir } from "../helpers/server.ts";

const SOURCE = [process.execPath, join(import.meta.dir, "../../src/main.ts")];
const dirs: string[] = [];
const dir = (prefix: string) => {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const cli = (args: string[]) => cliJson(args);

async function listModels(url: string, key: string): Promise<Response> {
  return fetch(`${url}/api/v1/models`, { headers: { authorization: `Bearer ${key}` } });
}

describe("docchat backup and restore", () => {
  test("a backup taken while the server writes restores into a fresh data dir with the data in it", async () => {
    const data = dir("docchat-live-");
    const backups = dir("docchat-backups-");
    const server = await startServeProcess({ command: SOURCE, dataDir: data });
    let apiKey = "";
    let deploymentId = "";
    try {
      await cli(["account", "create", "--email", "owner@example.com", "--tokens", "5000", "--data", data]);
      const dep = await cli(["deployment", "create", "--account", "owner@example.com", "--name", "Handbook", "--publish", "--data", data]);
      apiKey = String(dep.api_key);
      deploymentId = String(dep.id);
      // The running server sees the CLI's writes (shared WAL database).
      expect((await listModels(server.url, apiKey)).status).toBe(200);
      // Keep the server writing while the snapshot is taken.
      const writes = Array.from({ length: 5 }, (_, i) => cli(["account", "create", "--email", `busy${i}@example.com`, "--data", data]));
      const backup = await cli(["backup", backups, "--data", data]);
      await Promise.all(writes);
      expect(String(backup.path).startsWith(backups)).toBe(true);
      expect(backup.bytes).toBeGreaterThan(0);
      expect(backup.schema_version).toBeGreaterThan(0);
      // restore refuses while a server holds the data dir
      const refused = await runCliProcess(["restore", String(backup.path), "--data", data]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("stop it");
    } finally {
      expect(await server.stop("SIGTERM")).toBe(0);
    }
    expect(existsSync(join(data, "docchat.pid"))).toBe(false);

    const [file] = readdirSync(backups);
    expect(file).toBeDefined();
    const fresh = dir("docchat-restored-");
    const restored = await cli(["restore", join(backups, String(file)), "--data", fresh]);
    expect(restored.previous).toBeNull();
    const list = (await cli(["deployment", "list", "--data", fresh])) as { deployments: { id: string; name: string }[] };
    expect(list.deployments.map((d) => [d.id, d.name])).toEqual([[deploymentId, "Handbook"]]);

    // The restored data dir serves the same key.
    const again = await startServeProcess({ command: SOURCE, dataDir: fresh });
    try {
      const res = await listModels(again.url, apiKey);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: { id: string }[] }).data[0]?.id).toBe(deploymentId);
    } finally {
      expect(await again.stop("SIGINT")).toBe(0);
    }
  }, 60_000);

  test("restoring over an existing database keeps the old one aside", async () => {
    const data = dir("docchat-over-");
    await cli(["account", "create", "--email", "before@example.com", "--data", data]);
    const backups = dir("docchat-bk-");
    const backup = await cli(["backup", join(backups, "snap.db"), "--data", data]);
    await cli(["account", "create", "--email", "after@example.com", "--data", data]);
    const restored = await cli(["restore", String(backup.path), "--data", data]);
    expect(typeof restored.previous).toBe("string");
    expect(existsSync(String(restored.previous))).toBe(true);
    // "after@" was created after the snapshot, so it is gone; creating it again succeeds.
    await cli(["account", "create", "--email", "after@example.com", "--data", data]);
  }, 30_000);

  test("backup never overwrites an existing file", async () => {
    const data = dir("docchat-bkx-");
    await cli(["account", "create", "--email", "x@example.com", "--data", data]);
    const target = join(dir("docchat-bkt-"), "taken.db");
    writeFileSync(target, "keep me");
    const r = await runCliProcess(["backup", target, "--data", data]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("already exists");
    expect(await Bun.file(target).text()).toBe("keep me");
  }, 30_000);

  test("backup bk/ for a folder that does not exist makes the folder and writes a timestamped backup in it (N11)", async () => {
    const data = dir("docchat-bkd-");
    await cli(["account", "create", "--email", "dir@example.com", "--data", data]);
    const parent = dir("docchat-bkp-");
    const r = await runCliProcess(["backup", "bk/", "--data", data, "--json"], {}, { cwd: parent });
    expect(r.code).toBe(0);
    const made = join(parent, "bk");
    expect(statSync(made).isDirectory()).toBe(true);
    const files = readdirSync(made);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^docchat-.*\.db$/);
    expect((JSON.parse(r.stdout) as { path: string }).path).toBe(join(made, files[0] as string));
    // a file where a folder was asked for is refused, and left alone
    writeFileSync(join(parent, "taken"), "keep me");
    const refused = await runCliProcess(["backup", "taken/", "--data", data], {}, { cwd: parent });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("is not a directory");
  }, 30_000);

  test("restore rejects a file that is not a docchat database and leaves the data dir alone", async () => {
    const data = dir("docchat-bad-");
    await cli(["account", "create", "--email", "keep@example.com", "--data", data]);
    const junk = join(dir("docchat-junk-"), "junk.db");
    writeFileSync(junk, "this is not sqlite".repeat(100));
    const r = await runCliProcess(["restore", junk, "--data", data]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/not a SQLite database|integrity|not a database/i);
    expect(readdirSync(data).filter((f) => f.includes("restore") || f.includes("pre-restore"))).toEqual([]);
    const dup = await runCliProcess(["account", "create", "--email", "keep@example.com", "--data", data, "--json"]);
    expect(dup.code).not.toBe(0);
  }, 30_000);
});

describe("docchat backup with PostgreSQL", () => {
  test("does not pretend: it prints the pg_dump and pg_restore commands without the password and exits non-zero", async () => {
    const data = dir("docchat-pg-backup-");
    const url = "postgres://docchat:Hunter2-secret@db.internal:6432/docchat_prod?sslmode=require";
    const r = await runCliProcess(["backup", "/backups/docchat.dump", "--data", data, "--database", url]);
    expect(r.code).toBe(1);
    expect(`${r.stdout}${r.stderr}`).not.toContain("Hunter2-secret");
    expect(r.stderr).toContain(
      "pg_dump --format=custom --file=/backups/docchat.dump --dbname='postgres://docchat@db.internal:6432/docchat_prod?sslmode=require'",
    );
    expect(r.stderr).toContain(
      "pg_restore --exit-on-error --no-owner --dbname='postgres://docchat@db.internal:6432/docchat_prod?sslmode=require' /backups/docchat.dump",
    );
    expect(readdirSync(data)).toEqual([]);
    const restore = await runCliProcess(["restore", "/backups/docchat.dump", "--data", data, "--database", url]);
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain("pg_restore");
    expect(`${restore.stdout}${restore.stderr}`).not.toContain("Hunter2-secret");
  });
});
