import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { migratePg } from "../../src/store/postgres/migrate.pg.ts";
import { pgMigrations } from "../../src/store/postgres/migrations/index.ts";
import { type PgCluster, startPostgres } from "../helpers/postgres.ts";

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster.stop());

describe("PostgreSQL migrations", () => {
  test("the registry is numbered 1, 2, 3… without gaps or repeats", () => {
    expect(pgMigrations.map((m) => m.version)).toEqual(pgMigrations.map((_, i) => i + 1));
  });

  test("three nodes migrating at once apply each migration exactly once, and a restart applies nothing", async () => {
    const nodes = [new SQL(cluster.url), new SQL(cluster.url), new SQL(cluster.url)];
    try {
      const applied = await Promise.all(nodes.map((n) => migratePg(n)));
      expect(applied.flat().sort()).toEqual(pgMigrations.map((m) => m.version));
      expect(await migratePg(nodes[0] as SQL)).toEqual([]);
      const recorded = (await (nodes[1] as SQL)`SELECT version, name FROM schema_migrations ORDER BY version`) as {
        version: number;
        name: string;
      }[];
      expect(recorded.map((r) => ({ ...r }))).toEqual(pgMigrations.map((m) => ({ version: m.version, name: m.name })));
      const tables = (await (nodes[2] as SQL)`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`) as {
        tablename: string;
      }[];
      expect(tables.map((t) => t.tablename)).toEqual([
        "chunks",
        "embedding_cache",
        "index_meta",
        "kw_postings",
        "kw_stats",
        "kw_terms",
        "schema_migrations",
      ]);
    } finally {
      for (const n of nodes) await n.close();
    }
  });

  test("a failing migration leaves nothing behind and is not recorded", async () => {
    const sql = new SQL(cluster.url);
    try {
      const bad = [...pgMigrations, { version: 99, name: "broken", sql: "CREATE TABLE half_done (id int); SELECT no_such_function();" }];
      await expect(migratePg(sql, bad)).rejects.toThrow();
      expect(((await sql`SELECT to_regclass('half_done') IS NULL AS gone`) as { gone: boolean }[])[0]?.gone).toBe(true);
      expect(((await sql`SELECT count(*)::int AS n FROM schema_migrations WHERE version = 99`) as { n: number }[])[0]?.n).toBe(0);
    } finally {
      await sql.close();
    }
  });
});
