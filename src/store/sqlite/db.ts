import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { releaseChangeWatches } from "./change-watch.ts";
import { migrate } from "./migrate.ts";
import { buildVectorCodes } from "./vector-search.sqlite.ts";
import { extractVecExtension } from "./vec-extension.ts";

export type Db = Database;

/** Address space SQLite may map for reads (not memory: pages are the OS's file cache, shared and evictable). */
const MMAP_BYTES = 1 << 30;

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
  // Reads through a memory map rather than read() into a 2 MB page cache: a vector search reads tens of MB
  // (sqlite-vec scans a deployment's codes or vectors) and took 3–6 times as long copying them in. Writes still
  // go through write() and fsync (SQLite maps read-only), so durability is unchanged.
  db.run(`PRAGMA mmap_size = ${MMAP_BYTES}`);
  db.loadExtension(await extractVecExtension(dataDir));
  migrate(db);
  buildVectorCodes(db);
  startCheckpointer(db, join(dataDir, opts.file ?? "docchat.db"));
  return db;
}

const checkpointers = new WeakMap<Db, Worker>();

/** WAL checkpoints move to a worker thread (checkpoint.worker.ts); this connection no longer runs them itself. */
function startCheckpointer(db: Db, file: string): void {
  const worker = new Worker(new URL("./checkpoint.worker.ts", import.meta.url));
  worker.postMessage({ file, intervalMs: 1000 });
  (worker as Worker & { unref?: () => void }).unref?.();
  db.run("PRAGMA wal_autocheckpoint = 0");
  checkpointers.set(db, worker);
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
  // the checkpointer thread stops between two checkpoints (termination waits for the native call to return)
  checkpointers.get(db)?.terminate();
  checkpointers.delete(db);
  try {
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
    // only now: closing a descriptor of the -shm file while the connection is open would drop its locks
    releaseChangeWatches(db);
  }
}

export function now(): number {
  return Date.now();
}

/**
 * A write transaction committed without waiting for fsync. For writes nobody has been promised yet (the parts
 * of an upload before its document row, a large document's staged chunks): WAL keeps them atomic and safe
 * from kill -9, and the next FULL commit (the document row, the publish) makes them durable against power loss
 * too. Spares the event loop an fsync per part.
 */
export function unpromisedTransaction<T>(db: Db, fn: () => T): T {
  db.run("PRAGMA synchronous = NORMAL");
  try {
    return db.transaction(fn).immediate();
  } finally {
    db.run("PRAGMA synchronous = FULL");
  }
}

/**
 * Writes the WAL's unsynced pages (left by unpromisedTransaction) to disk on the thread pool, so the FULL commit
 * that follows has little left to fsync on the event loop: that commit flushed every staged part at once (tens
 * of milliseconds for a 25 MB upload, more on a slow disk) while no request could be served. Best effort: the
 * commit's own fsync still makes the write durable.
 */
export async function flushWal(db: Db): Promise<void> {
  const file = db.filename;
  if (!file || file === ":memory:") return;
  try {
    const wal = await open(`${file}-wal`, "r");
    try {
      await wal.datasync();
    } finally {
      await wal.close();
    }
  } catch {}
}
