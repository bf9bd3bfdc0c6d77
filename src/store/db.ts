import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
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
  ensurePrivateDir(dataDir);
  const file = join(dataDir, opts.file ?? "docchat.db");
  makePrivateFile(file);
  const db = new Database(file, { create: true, strict: true });
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
 * The data dir holds keys' hashes, documents and visitor data: created 0700 (an existing one keeps the mode
 * its operator gave it; its database files are made private below).
 */
export function ensurePrivateDir(dir: string): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * The database file is created 0600 before SQLite opens it, since SQLite gives its WAL and shared-memory files
 * the database file's mode; an existing file (and its WAL) is set to 0600 too.
 */
export function makePrivateFile(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, "a", 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
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
