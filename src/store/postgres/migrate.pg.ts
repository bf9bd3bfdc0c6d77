import type { SQL } from "bun";
import { pgMigrations } from "./migrations/index.ts";

/** Any number the nodes agree on: the transaction-scoped advisory lock that serialises migrating nodes. */
const MIGRATION_LOCK = 7_201_512;

/**
 * Applies pending PostgreSQL migrations in ONE transaction under an advisory lock and records them, so N nodes
 * starting at once migrate exactly once: the first takes the lock and migrates, the others wait, then find
 * every version recorded. DDL is transactional in PostgreSQL: a failed migration leaves nothing behind.
 * Returns the versions this call applied.
 */
export async function migratePg(sql: SQL, list = pgMigrations): Promise<number[]> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`;
    const done = new Set(((await tx`SELECT version FROM schema_migrations`) as { version: number }[]).map((r) => r.version));
    const applied: number[] = [];
    for (const m of list) {
      if (done.has(m.version)) continue;
      await tx.unsafe(m.sql);
      await tx`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${m.version}, ${m.name}, ${Date.now()})`;
      applied.push(m.version);
    }
    return applied;
  });
}
