import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
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
