import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ensureKeywordTables } from "./keyword-tables.ts";
import { migrate } from "./migrate.ts";
import { extractVecExtension } from "./vec-extension.ts";

export type Db = Database;

/**
 * The only place that opens SQLite. WAL so the CLI and the server share the file; busy_timeout so
 * short write contention waits instead of failing; synchronous=FULL so an acknowledged write survives kill -9
 * and power loss alike.
 */
export async function openDatabase(dataDir: string, opts: { file?: string } = {}): Promise<Db> {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, opts.file ?? "docchat.db"), { create: true, strict: true });
  db.run("PRAGMA journal_mode = WAL");
  db.run("PRAGMA busy_timeout = 10000");
  db.run("PRAGMA foreign_keys = ON");
  db.run("PRAGMA synchronous = FULL");
  db.loadExtension(await extractVecExtension(dataDir));
  migrate(db);
  ensureKeywordTables(db);
  return db;
}

/**
 * Opens one database file as it is, without migrating: for backups, restores and diagnostics. sqlite-vec is
 * loaded (from `vecDir`, where it is extracted) so vec0 tables can be read and checked.
 */
export async function openDatabaseFile(file: string, opts: { vecDir: string; readonly?: boolean }): Promise<Db> {
  const db = opts.readonly ? new Database(file, { readonly: true, strict: true }) : new Database(file, { readwrite: true, strict: true });
  db.run("PRAGMA busy_timeout = 10000");
  db.loadExtension(await extractVecExtension(opts.vecDir));
  return db;
}

/** Checkpoints the WAL and closes; called on graceful shutdown. */
export function closeDatabase(db: Db): void {
  try {
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}

export function now(): number {
  return Date.now();
}
