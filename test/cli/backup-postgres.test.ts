/** `docchat backup` on PostgreSQL prints pg_dump / pg_restore commands; run as printed, they really back up and restore. */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { PG_BIN } from "../../scripts/ensure-postgres.ts";
import { migratePg } from "../../src/store/postgres/migrate.pg.ts";
import { runCliProcess, tempDir } from "../helpers/server.ts";
import { freshPgDatabase, stopSharedCluster } from "../helpers/stores.ts";

setDefaultTimeout(60_000);
const dir = tempDir("docchat-pgdump-");
afterAll(async () => {
  await stopSharedCluster();
  rmSync(dir, { recursive: true, force: true });
});

/** The printed command line that starts with `tool`, run through the shell as an operator would paste it. */
async function runPrinted(stderr: string, tool: string): Promise<void> {
  const line = stderr.split("\n").find((l) => l.trim().startsWith(`${tool} `));
  if (!line) throw new Error(`no ${tool} command in: ${stderr}`);
  const p = Bun.spawn(["sh", "-c", line.trim()], { env: { ...process.env, PATH: `${PG_BIN}:${process.env.PATH}` }, stderr: "pipe" });
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  if (code !== 0) throw new Error(`${line.trim()} failed: ${err}`);
}

test("the pg_dump and pg_restore commands backup prints, run as printed, move the data to a new database", async () => {
  const source = await freshPgDatabase();
  const a = new SQL(source, { max: 1 });
  await migratePg(a);
  await a`INSERT INTO accounts (email, created_at) VALUES ('kept@example.com', 42)`;
  await a.close();
  const file = join(dir, "docchat.dump");
  const dumped = await runCliProcess(["backup", file, "--data", join(dir, "data"), "--database", source]);
  expect(dumped.code).toBe(1);
  await runPrinted(dumped.stderr, "pg_dump");

  const target = await freshPgDatabase();
  const restored = await runCliProcess(["restore", file, "--data", join(dir, "data"), "--database", target]);
  expect(restored.code).toBe(1);
  // the fresh database already has the vector extension (as a DBA would create it); the dump's CREATE EXTENSION is IF NOT EXISTS
  await runPrinted(restored.stderr, "pg_restore");
  const b = new SQL(target, { max: 1 });
  expect(((await b`SELECT email, created_at::int AS at FROM accounts`) as { email: string; at: number }[]).map((r) => ({ ...r }))).toEqual([
    { email: "kept@example.com", at: 42 },
  ]);
  expect(((await b`SELECT count(*)::int AS n FROM schema_migrations`) as { n: number }[])[0]?.n).toBeGreaterThan(0);
  await b.close();
});
