/**
 * Raw SQL for tests that set up or read a state no service offers (a mail rewound, a deployment marked trained),
 * on either engine: `?` placeholders, as SQLite writes them, are numbered for PostgreSQL. Plain statements only:
 * what both engines parse alike. For what only one engine has (triggers, PRAGMAs), use sqliteDb().
 */
import type { Services } from "../../src/app.ts";
import type { PgStore } from "../../src/store/postgres/pg-store.ts";
import type { Db } from "../../src/store/sqlite/db.ts";
import type { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";

type Param = string | number | null;

export interface TestSql {
  run(sql: string, params?: Param[]): Promise<number>;
  all<R>(sql: string, params?: Param[]): Promise<R[]>;
  get<R>(sql: string, params?: Param[]): Promise<R | null>;
}

/** The SQLite database of a SQLite test server: for tests of SQLite itself (file modes, triggers, WAL). */
export function sqliteDb(services: Services): Db {
  if (services.store.engine !== "sqlite") throw new Error("sqliteDb: this test server runs on PostgreSQL");
  return (services.store as SqliteStore).db;
}

export function testSql(services: Services): TestSql {
  if (services.store.engine === "sqlite") {
    const db = sqliteDb(services);
    return {
      run: async (sql, params = []) => db.run(sql, params).changes,
      all: async <R>(sql: string, params: Param[] = []) => db.query<R, Param[]>(sql).all(...params),
      get: async <R>(sql: string, params: Param[] = []) => db.query<R, Param[]>(sql).get(...params),
    };
  }
  const pg = (services.store as PgStore).sql;
  let n = 0;
  const numbered = (sql: string) => {
    n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  const all = async <R>(sql: string, params: Param[] = []) => (await pg.unsafe(numbered(sql), params)) as R[];
  return {
    run: async (sql, params = []) => ((await pg.unsafe(numbered(sql), params)) as { count: number }).count,
    all,
    get: async <R>(sql: string, params: Param[] = []) => (await all<R>(sql, params))[0] ?? null,
  };
}
