import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { migratePg } from "../../src/store/postgres/migrate.pg.ts";
import { pgMigrations } from "../../src/store/postgres/migrations/index.ts";
import { createPgStore } from "../../src/store/postgres/pg-store.ts";
import { migrate } from "../../src/store/sqlite/migrate.ts";
import { migrations } from "../../src/store/sqlite/migrations/index.ts";
import { extractVecExtension } from "../../src/store/sqlite/vec-extension.ts";
import { type PgCluster, startPostgres } from "../helpers/postgres.ts";
import { tempDir } from "../helpers/server.ts";

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster.stop());

describe("PostgreSQL migrations", () => {
  test("the registry is numbered 1, 2, 3… without gaps or repeats", () => {
    expect(pgMigrations.map((m) => m.version)).toEqual(pgMigrations.map((_, i) => i + 1));
  });

  test("every prefix of the list, then the rest, ends in the same schema as all at once, matching the committed snapshot", async () => {
    let seq = 0;
    const fresh = async () => {
      const name = `prefix_${++seq}_${Date.now()}`;
      const admin = new SQL(cluster.url, { max: 1 });
      await admin.unsafe(`CREATE DATABASE ${name}`);
      await admin.close();
      const sql = new SQL(cluster.url.replace(/\/docchat$/, `/${name}`), { max: 1 });
      await sql`CREATE EXTENSION IF NOT EXISTS vector`;
      return sql;
    };
    const all = await fresh();
    await migratePg(all);
    const expected = await pgSchemaOf(all);
    await all.close();
    for (let k = 0; k <= pgMigrations.length; k++) {
      const sql = await fresh();
      try {
        expect(await migratePg(sql, pgMigrations.slice(0, k))).toEqual(pgMigrations.slice(0, k).map((m) => m.version));
        expect(await migratePg(sql)).toEqual(pgMigrations.slice(k).map((m) => m.version));
        expect(await pgSchemaOf(sql)).toBe(expected);
        expect(await migratePg(sql)).toEqual([]);
      } finally {
        await sql.close();
      }
    }
    expect(expected).toMatchSnapshot();
  }, 60_000);

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
        "accounts",
        "api_keys",
        "chat_logs",
        "chunk_codes",
        "chunks",
        "conversations",
        "corrections",
        "deployment_policies",
        "deployments",
        "document_blobs",
        "document_parts",
        "documents",
        "embedding_cache",
        "erasures",
        "index_meta",
        "kw_postings",
        "kw_reindex",
        "kw_stats",
        "kw_terms",
        "leads",
        "mail_outbox",
        "owner_login_attempts",
        "owner_sessions",
        "rate_limit_counts",
        "rate_limit_hits",
        "report_rollups",
        "schema_migrations",
        "test_questions",
        "test_results",
        "test_runs",
        "token_ledger",
        "token_reservations",
        "vector_changes",
        "vector_generations",
        "webhook_deliveries",
        "webhook_endpoints",
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

  test("every SQLite table but the SQLite-only ones has a PostgreSQL twin with the same columns in the same order, nullability and keys", async () => {
    const dir = tempDir("docchat-pg-parity-");
    const lite = new Database(join(dir, "parity.db"), { create: true, strict: true });
    const sql = new SQL(cluster.url);
    try {
      lite.loadExtension(await extractVecExtension(dir));
      migrate(lite, migrations);
      const sqliteOnly = (name: string) =>
        name === "keyword_tables" || name === "keyword_reindex" || name.startsWith("kw_") || name.startsWith("chunks_vec");
      const tables = lite
        .query<{ name: string }, []>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all()
        .map((t) => t.name)
        .filter((n) => !sqliteOnly(n));
      expect(tables.length).toBeGreaterThan(15);
      await migratePg(sql);
      const pgOnly: Record<string, string[]> = { documents: ["lease_owner", "lease_until"], chunks: ["kw_length", "kw_length_next"] };
      for (const table of tables) {
        const want = lite
          .query<{ name: string; notnull: number; pk: number }, []>(`SELECT name, "notnull", pk FROM pragma_table_info('${table}')`)
          .all()
          .map((c) => `${c.name}${c.notnull || c.pk ? " not null" : ""}`);
        const got = (
          (await sql`SELECT column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${table} ORDER BY ordinal_position`) as {
            column_name: string;
            is_nullable: string;
          }[]
        )
          .filter((c) => !pgOnly[table]?.includes(c.column_name))
          .map((c) => `${c.column_name}${c.is_nullable === "NO" ? " not null" : ""}`);
        expect({ table, columns: got }).toEqual({ table, columns: want });
        const fks = lite
          .query<{ table: string; from: string; on_delete: string }, []>(
            `SELECT "table", "from", on_delete FROM pragma_foreign_key_list('${table}')`,
          )
          .all()
          .map((f) => `${f.from} -> ${f.table} ${f.on_delete}`)
          .sort();
        const pgFks = (
          (await sql`SELECT a.attname AS col, c.confrelid::regclass::text AS ref, c.confdeltype AS del FROM pg_constraint c
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
            WHERE c.contype = 'f' AND c.conrelid = ${table}::regclass`) as { col: string; ref: string; del: string }[]
        )
          .map(
            (f) =>
              `${f.col} -> ${f.ref} ${({ c: "CASCADE", n: "SET NULL", a: "NO ACTION", r: "RESTRICT", d: "SET DEFAULT" } as Record<string, string>)[f.del]}`,
          )
          .sort();
        expect({ table, fks: pgFks }).toEqual({ table, fks });
      }
    } finally {
      lite.close();
      await sql.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("on a database whose default collation ignores case, text still sorts and folds as SQLite's does", async () => {
    const admin = new SQL(cluster.url, { max: 1 });
    await admin.unsafe(`CREATE DATABASE icu_order TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`);
    await admin.close();
    const url = cluster.url.replace(/\/docchat$/, "/icu_order");
    const sql = new SQL(url, { max: 1 });
    try {
      await sql`CREATE EXTENSION IF NOT EXISTS vector`;
      await migratePg(sql);
      const store = await createPgStore(url, { max: 2 });
      try {
        const [owner] = (await sql`INSERT INTO accounts (email, created_at) VALUES ('Bob@example.com', 1) RETURNING id`) as {
          id: string;
        }[];
        for (const id of ["dep_b", "dep_a", "dep_B", "dep_A"])
          await sql`INSERT INTO deployments (id, account_id, name, created_at, updated_at) VALUES (${id}, ${owner?.id}, 'x', 5, 5)`;
        // SQLite BINARY: upper case before lower case
        expect((await store.repos.deployments.list(Number(owner?.id))).map((d) => d.id)).toEqual(["dep_A", "dep_B", "dep_a", "dep_b"]);
        // NOCASE folds ASCII only: bob@ clashes with Bob@, élan@ does not clash with ÉLAN@
        await expect(sql`INSERT INTO accounts (email, created_at) VALUES ('bob@EXAMPLE.com', 1)`).rejects.toThrow();
        await sql`INSERT INTO accounts (email, created_at) VALUES ('ÉLAN@example.com', 1)`;
        await sql`INSERT INTO accounts (email, created_at) VALUES ('élan@example.com', 1)`;
      } finally {
        await store.close();
      }
    } finally {
      await sql.close();
    }
  });
});

/** Everything PostgreSQL knows about the schema that migrations make, in a stable order: tables and their columns,
 * constraints, indexes, functions and triggers (schema_migrations' rows left out). */
async function pgSchemaOf(sql: SQL): Promise<string> {
  const rows = (await sql`
    SELECT 'column ' || c.table_name || '.' || c.column_name || ' ' || c.data_type || COALESCE('(' || c.character_maximum_length || ')', '')
           || CASE WHEN c.is_nullable = 'NO' THEN ' NOT NULL' ELSE '' END || COALESCE(' DEFAULT ' || c.column_default, '')
           || COALESCE(' COLLATE ' || c.collation_name, '') AS line, 1 AS kind, c.table_name AS t, c.ordinal_position AS o
      FROM information_schema.columns c WHERE c.table_schema = 'public'
    UNION ALL
    SELECT 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid), 2, conrelid::regclass::text, 0
      FROM pg_constraint WHERE connamespace = 'public'::regnamespace
    UNION ALL
    SELECT 'index ' || indexdef, 3, tablename, 0 FROM pg_indexes WHERE schemaname = 'public'
    UNION ALL
    SELECT 'function ' || p.proname || '(' || pg_get_function_arguments(p.oid) || ') ' || md5(p.prosrc), 4, p.proname, 0
      FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace AND p.prokind = 'f'
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
    UNION ALL
    SELECT 'trigger ' || pg_get_triggerdef(t.oid), 5, t.tgrelid::regclass::text, 0 FROM pg_trigger t WHERE NOT t.tgisinternal
    ORDER BY kind, t, o, line`) as { line: string }[];
  return rows.map((r) => r.line).join("\n");
}
