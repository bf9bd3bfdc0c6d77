import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { closeDatabase, type Db, ensurePrivateDir, openDatabase, openDatabaseFile } from "./db.ts";
import { migrations } from "./migrations/index.ts";

const DB_FILE = "docchat.db";

function fsyncPath(path: string, flags = "r"): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function timestamp(): string {
  return new Date().toISOString().replace(/[:.]/g, "-");
}

function schemaVersion(db: Db): number {
  const row = db.query<{ v: number | null }, []>("SELECT max(version) AS v FROM schema_migrations").get();
  return row?.v ?? 0;
}

/** Full integrity check; throws with SQLite's first complaint. */
function checkIntegrity(db: Db, what: string): void {
  const rows = db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all();
  const first = rows[0]?.integrity_check;
  if (first !== "ok") throw new Error(`${what} failed the integrity check: ${first ?? "no result"}`);
}

export interface BackupResult {
  path: string;
  bytes: number;
  schema_version: number;
  ms: number;
}

/**
 * A consistent snapshot of the live database: VACUUM INTO reads inside one read transaction, so it works while
 * the server writes (WAL). Written to a temp name, checked, fsynced, then renamed, so PATH is either absent or
 * a complete backup. A directory (an existing one, or PATH ending in "/", made if missing) gets a timestamped file
 * inside; an existing file is not overwritten.
 */
export async function backupDatabase(dataDir: string, target: string): Promise<BackupResult> {
  const started = performance.now();
  const source = join(dataDir, DB_FILE);
  if (!existsSync(source)) throw new Error(`no database at ${source}`);
  let path = resolve(target);
  // "bk/" names a directory, whether or not it exists yet: it is made (private), never taken as a file name
  if (/[\\/]$/.test(target) && !existsSync(path)) mkdirSync(path, { recursive: true, mode: 0o700 });
  if (existsSync(path) && statSync(path).isDirectory()) path = join(path, `docchat-${timestamp()}.db`);
  else if (/[\\/]$/.test(target)) throw new Error(`${path} is not a directory`);
  if (existsSync(path)) throw new Error(`${path} already exists; choose a new file name`);
  if (!existsSync(dirname(path))) throw new Error(`directory ${dirname(path)} does not exist`);
  const partial = join(dirname(path), `.${basename(path)}.partial-${process.pid}`);
  const db = await openDatabaseFile(source, { vecDir: dataDir });
  try {
    // VACUUM INTO accepts an empty file: creating it first makes the backup 0600 like the database.
    closeSync(openSync(partial, "wx", 0o600));
    db.run("VACUUM INTO ?", [partial]);
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  } finally {
    db.close();
  }
  let version = 0;
  try {
    const copy = await openDatabaseFile(partial, { vecDir: dataDir, readonly: true });
    try {
      checkIntegrity(copy, "the backup");
      version = schemaVersion(copy);
    } finally {
      copy.close();
    }
    fsyncPath(partial);
    renameSync(partial, path);
    fsyncPath(dirname(path));
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  }
  return { path, bytes: statSync(path).size, schema_version: version, ms: Math.round(performance.now() - started) };
}

export interface RestoreResult {
  restored_from: string;
  data: string;
  /** where the database that was replaced was moved to (null when there was none) */
  previous: string | null;
  schema_version: number;
}

/**
 * Replaces the data dir's database with a backup. The caller must make sure no server uses the data dir.
 * The backup is copied next to the database and verified (integrity_check, a docchat schema not newer than
 * this build) before anything is swapped; the old database is kept under a `pre-restore` name, never deleted.
 * The restored file is then migrated to this build's schema.
 */
export async function restoreDatabase(dataDir: string, backupPath: string): Promise<RestoreResult> {
  const from = resolve(backupPath);
  if (!existsSync(from) || !statSync(from).isFile()) throw new Error(`no backup file at ${from}`);
  const data = resolve(dataDir);
  const target = join(data, DB_FILE);
  const staging = join(data, `.${DB_FILE}.restore-${process.pid}`);
  const latest = migrations.at(-1)?.version ?? 0;
  ensurePrivateDir(data);
  copyFileSync(from, staging);
  chmodSync(staging, 0o600);
  try {
    let db: Db;
    try {
      db = await openDatabaseFile(staging, { vecDir: data });
    } catch (e) {
      throw new Error(`${from} is not a SQLite database (${(e as Error).message})`);
    }
    try {
      checkIntegrity(db, from);
      const hasTable = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
      if (!hasTable) throw new Error(`${from} is not a docchat database (no schema_migrations table)`);
      const version = schemaVersion(db);
      if (version > latest)
        throw new Error(`${from} has schema version ${version}, newer than this docchat (${latest}); use a newer docchat`);
      // Fold any WAL content into the file so the swap is a single rename.
      db.run("PRAGMA journal_mode = DELETE");
    } finally {
      db.close();
    }
    fsyncPath(staging);
  } catch (e) {
    rmSync(staging, { force: true });
    throw e;
  }
  let previous: string | null = null;
  if (existsSync(target)) {
    previous = join(data, `docchat.pre-restore-${timestamp()}.db`);
    renameSync(target, previous);
    if (existsSync(`${target}-wal`)) renameSync(`${target}-wal`, `${previous}-wal`);
    rmSync(`${target}-shm`, { force: true });
  }
  renameSync(staging, target);
  fsyncPath(data);
  const db = await openDatabase(data);
  const version = schemaVersion(db);
  closeDatabase(db);
  return { restored_from: from, data, previous, schema_version: version };
}
