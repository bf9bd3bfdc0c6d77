import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { SQL } from "bun";
import { runCliProcess, tempDir } from "../helpers/server.ts";
import { freshPgDatabase, stopSharedCluster } from "../helpers/stores.ts";

afterAll(stopSharedCluster);

describe("DOCCHAT_DATABASE_URL / --database", () => {
  test("a PostgreSQL server that can't be reached stops a command with its address and code, never the password", async () => {
    const data = tempDir();
    try {
      for (const [args, env] of [
        [["deployment", "list", "--data", data], { DOCCHAT_DATABASE_URL: "postgres://owner:s3cret-pw@127.0.0.1:1/docchat" }],
        [["deployment", "list", "--data", data, "--database", "postgres://owner:s3cret-pw@127.0.0.1:1/docchat"], {}],
      ] as [string[], Record<string, string>][]) {
        const r = await runCliProcess(args, env);
        expect(r.code).not.toBe(0);
        expect(r.stderr).toContain("PostgreSQL at 127.0.0.1:1/docchat");
        expect(r.stderr).toContain("ERR_POSTGRES_CONNECTION_REFUSED");
        expect(`${r.stdout}${r.stderr}`).not.toContain("s3cret-pw");
      }
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  test("the URL alone decides where docchat connects: PGDATABASE, PGHOST, PGPORT, PGUSER and PGSSLMODE set to other values change nothing", async () => {
    const url = await freshPgDatabase();
    const data = tempDir();
    try {
      const other = {
        PGDATABASE: "postgres",
        PGHOST: "10.255.255.1",
        PGPORT: "1",
        PGUSER: "nobody",
        PGSSLMODE: "require",
        DOCCHAT_DATABASE_URL: url,
      };
      const r = await runCliProcess(["account", "create", "--email", "pgenv@example.com", "--data", data, "--json"], other);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      // the tables and the account are in the URL's database, and nothing was created in database "postgres"
      const target = new SQL(url, { max: 1 });
      const postgres = new SQL(url.replace(/\/[^/]+$/, "/postgres"), { max: 1 });
      try {
        expect(((await target`SELECT email FROM accounts`) as { email: string }[]).map((a) => a.email)).toEqual(["pgenv@example.com"]);
        expect(((await postgres`SELECT to_regclass('public.accounts') IS NULL AS none`) as { none: boolean }[])[0]?.none).toBe(true);
      } finally {
        await target.close();
        await postgres.close();
      }
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  }, 60_000);

  test("a URL that is not postgres:// is refused as a setting before anything starts", async () => {
    const r = await runCliProcess(["deployment", "list"], { DOCCHAT_DATABASE_URL: "mysql://u:p@db/x" });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("DOCCHAT_DATABASE_URL");
    expect(r.stderr).toContain("postgres://");
  });
});
