/** `docchat doctor` with DOCCHAT_DATABASE_URL: the real CLI against a real PostgreSQL 15 + pgvector cluster. */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { SQL } from "bun";
import { versionAtLeast } from "../../src/store/postgres/diagnostics.pg.ts";
import { migratePg } from "../../src/store/postgres/migrate.pg.ts";
import { pgMigrations } from "../../src/store/postgres/migrations/index.ts";
import { freePort } from "../helpers/free-port.ts";
import { runCliProcess, tempDir } from "../helpers/server.ts";
import { freshPgDatabase, sharedCluster, stopSharedCluster } from "../helpers/stores.ts";

setDefaultTimeout(30_000);
const PASSWORD = "doctor-Secret-pw";
const data = tempDir("docchat-doctor-pg-");
afterAll(async () => {
  await stopSharedCluster();
  rmSync(data, { recursive: true, force: true });
});

interface PgCheck {
  status: string;
  summary: string;
  server: string;
  server_version_num?: number;
  vector?: { installed: string | null; available: string | null };
  schema?: { state: string; pending: number[]; unknown: number[] };
}

async function doctor(url: string): Promise<{ code: number; check: PgCheck; out: string }> {
  const withPw = url.replace("postgres://docchat@", `postgres://docchat:${PASSWORD}@`);
  const r = await runCliProcess(["doctor", "--offline", "--json", "--data", data, "--database", withPw], { DOCCHAT_EMBEDDER: "none" });
  const out = `${r.stdout}${r.stderr}`;
  expect(out).not.toContain(PASSWORD);
  const body = JSON.parse(r.stdout) as { postgres: PgCheck; data_dir: { summary: string } };
  expect(body.data_dir.summary).toContain("state in PostgreSQL");
  return { code: r.code, check: body.postgres, out };
}

const withDb = async (url: string, f: (sql: SQL) => Promise<void>) => {
  const sql = new SQL(url, { max: 1 });
  try {
    await f(sql);
  } finally {
    await sql.close();
  }
};

describe("doctor with PostgreSQL", () => {
  test("a migrated database on PostgreSQL 15 with pgvector 0.8 passes with its schema current", async () => {
    const url = await freshPgDatabase();
    await withDb(url, async (sql) => {
      await migratePg(sql);
    });
    const { code, check } = await doctor(url);
    expect(check.status).toBe("ok");
    expect(check.server_version_num).toBeGreaterThanOrEqual(150000);
    expect(check.vector?.installed).toMatch(/^0\.(8|9)|^[1-9]/);
    expect(check.schema).toMatchObject({ state: "current", pending: [], unknown: [] });
    expect(check.summary).toContain("schema current");
    expect(check.server).not.toContain("docchat:");
    expect(code).toBe(0);
  });

  test("a database never migrated is reported as empty, one missing a migration as behind this binary", async () => {
    const url = await freshPgDatabase();
    expect((await doctor(url)).check.schema?.state).toBe("empty");
    const last = pgMigrations[pgMigrations.length - 1]?.version as number;
    await withDb(url, async (sql) => {
      await migratePg(sql);
      await sql`DELETE FROM schema_migrations WHERE version = ${last}`;
    });
    const { check, code } = await doctor(url);
    expect(check.status).toBe("warn");
    expect(check.schema).toMatchObject({ state: "behind", pending: [last] });
    expect(check.summary).toContain("behind this binary");
    expect(code).toBe(0);
  });

  test("a database migrated by a newer docchat is an error: schema ahead of this binary", async () => {
    const url = await freshPgDatabase();
    await withDb(url, async (sql) => {
      await migratePg(sql);
      await sql`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from_the_future', 0)`;
    });
    const { check, code } = await doctor(url);
    expect(check.status).toBe("error");
    expect(check.schema).toMatchObject({ state: "ahead", unknown: [999] });
    expect(check.summary).toContain("newer docchat");
    expect(code).toBe(1);
  });

  test("a database without the vector extension warns that it still has to be created", async () => {
    const c = await sharedCluster();
    await withDb(c.url, async (sql) => {
      await sql.unsafe("CREATE DATABASE no_vector");
    });
    const { check } = await doctor(c.url.replace(/\/docchat$/, "/no_vector"));
    expect(check.vector?.installed).toBeNull();
    expect(check.vector?.available).not.toBeNull();
    expect(check.status).toBe("warn");
    expect(check.summary).toContain("CREATE EXTENSION vector");
  });

  test("a server that does not answer is an error naming host and port, never the password", async () => {
    const port = await freePort();
    const { check, code, out } = await doctor(`postgres://docchat@127.0.0.1:${port}/docchat`);
    expect(check.status).toBe("error");
    expect(check.summary).toContain(`cannot reach PostgreSQL at 127.0.0.1:${port}/docchat`);
    expect(out).not.toContain(PASSWORD);
    expect(code).toBe(1);
  });

  test("pgvector versions compare as numbers, so 0.10 is newer than 0.8 and 0.7.4 is older", () => {
    expect(versionAtLeast("0.8.6", "0.8")).toBe(true);
    expect(versionAtLeast("0.8", "0.8")).toBe(true);
    expect(versionAtLeast("0.10.0", "0.8")).toBe(true);
    expect(versionAtLeast("1.0", "0.8")).toBe(true);
    expect(versionAtLeast("0.7.4", "0.8")).toBe(false);
  });
});
