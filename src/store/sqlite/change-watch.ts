import type { Database } from "bun:sqlite";
import { closeSync, openSync, readSync } from "node:fs";

/**
 * Says whether anyone — this process or another (the CLI) — has committed to the database since it was last
 * asked. It reads the WAL-index header at the start of the `-shm` file every connection shares: its change counter
 * (bumped by every commit), frame count and salts (new after every WAL restart), as documented in "The WAL-index
 * File Format" (sqlite.org/walformat.html). One 48-byte read from the page cache costs a system call (~1 µs),
 * where `PRAGMA data_version` costs a read transaction (~9 µs) — too much for a check on every gated request.
 * A torn read only reports a change that did not happen (one cache clear too many).
 *
 * The `-shm` file is read through a descriptor held until the database is closed (releaseChangeWatches, called by
 * closeDatabase after the close), never opened and closed while SQLite holds its locks on it: POSIX drops ALL of a
 * process's locks on a file when ANY of its descriptors for that file is closed. Mapping it with Bun.mmap (which
 * closes its descriptor) did exactly that: the connection lost its shared-memory lock, the next process to open
 * the database found no holder and truncated and re-initialised the WAL index under the server's feet (a SIGBUS,
 * seen as a crashed CLI in the backup test, and a risk to the WAL's consistency).
 *
 * Without a WAL index to read (an in-memory database), it falls back to asking SQLite: this connection's
 * total_changes() and PRAGMA data_version.
 */
export function createChangeWatch(db: Database): () => boolean {
  const shm = holdWalIndex(db);
  if (!shm) return queryWatch(db);
  const header = new Uint8Array(48);
  const view = new DataView(header.buffer);
  let [change, frames, salt1, salt2] = [-1, -1, -1, -1];
  return () => {
    if (!shm.open || readSync(shm.fd, header, 0, 48, 0) < 48) return true;
    // iChange (offset 8), mxFrame (16) and aSalt (32, 36) of the header's first copy (compared, so byte order is moot)
    const c = view.getUint32(8, true);
    const f = view.getUint32(16, true);
    const s1 = view.getUint32(32, true);
    const s2 = view.getUint32(36, true);
    if (c === change && f === frames && s1 === salt1 && s2 === salt2) return false;
    [change, frames, salt1, salt2] = [c, f, s1, s2];
    return true;
  };
}

interface HeldFile {
  fd: number;
  open: boolean;
}

const held = new WeakMap<Database, HeldFile[]>();

/** Closes the descriptors the database's change watches read: only once the database itself is closed. */
export function releaseChangeWatches(db: Database): void {
  for (const h of held.get(db) ?? []) {
    h.open = false;
    closeSync(h.fd);
  }
  held.delete(db);
}

function holdWalIndex(db: Database): HeldFile | null {
  const file = db.filename;
  if (!file || file === ":memory:") return null;
  let fd: number;
  try {
    fd = openSync(`${file}-shm`, "r");
  } catch {
    return null;
  }
  const h = { fd, open: true };
  held.set(db, [...(held.get(db) ?? []), h]);
  return h;
}

function queryWatch(db: Database): () => boolean {
  const version = db.query<{ c: number; v: number }, []>(
    "SELECT total_changes() AS c, (SELECT data_version FROM pragma_data_version) AS v",
  );
  let stamp = "";
  return () => {
    const v = version.get();
    const now = `${v?.c}:${v?.v}`;
    const changed = now !== stamp;
    stamp = now;
    return changed;
  };
}
