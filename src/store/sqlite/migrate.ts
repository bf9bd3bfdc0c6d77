import type { Database } from "bun:sqlite";
import { migrations as all } from "./migrations/index.ts";

/** Applies pending migrations, each in its own transaction, and records them. Returns the versions applied. */
export function migrate(db: Database, list = all): number[] {
  db.run("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)");
  const done = new Set(
    db
      .query<{ version: number }, []>("SELECT version FROM schema_migrations")
      .all()
      .map((r) => r.version),
  );
  const applied: number[] = [];
  for (const m of list) {
    if (done.has(m.version)) continue;
    db.transaction(() => {
      db.run(m.sql);
      db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", [m.version, m.name, Date.now()]);
    }).immediate();
    applied.push(m.version);
  }
  return applied;
}
