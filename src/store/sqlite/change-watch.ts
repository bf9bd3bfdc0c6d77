import { dlopen, FFIType, toArrayBuffer } from "bun:ffi";
import type { Database } from "bun:sqlite";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/**
 * Says whether anyone — this process or another (the CLI) — has committed to the database since it was last
 * asked. It reads the WAL-index header at the start of the `-shm` file every connection shares: its change counter
 * (bumped by every commit), frame count and salts (new after every WAL restart), as documented in "The WAL-index
 * File Format" (sqlite.org/walformat.html). The header is read where SQLite itself reads it, in the file's shared
 * memory mapping (mmap through the held descriptor): a look costs a few memory loads, where a `readSync` of
 * the 48 bytes costs a system call (~1–4 µs, a seventh of a gated request's time) and `PRAGMA data_version` a
 * read transaction (~9 µs). A commit is seen by the very next look, as before. A torn read only reports a change
 * that did not happen (one cache clear too many).
 *
 * The `-shm` file is read through a descriptor held until the database is closed (releaseChangeWatches, called by
 * closeDatabase after the close), never opened and closed while SQLite holds its locks on it: POSIX drops ALL of a
 * process's locks on a file when ANY of its descriptors for that file is closed. Mapping it with Bun.mmap (which
 * closes its descriptor) did exactly that: the connection lost its shared-memory lock, the next process to open
 * the database found no holder and truncated and re-initialised the WAL index under the server's feet (a SIGBUS,
 * seen as a crashed CLI in the backup test, and a risk to the WAL's consistency). So the map is made from the held
 * descriptor (libc's mmap through bun:ffi), and while the connection is open its lock keeps anyone from
 * truncating the file under the map. Where libc cannot be reached, the header is read with readSync.
 *
 * Without a WAL index to read (an in-memory database), it falls back to asking SQLite: this connection's
 * total_changes() and PRAGMA data_version.
 */
export function createChangeWatch(db: Database): () => boolean {
  const shm = holdWalIndex(db);
  if (!shm) return queryWatch(db);
  const readBuffer = new Uint8Array(HEADER_BYTES);
  const view = shm.mapped ? new DataView(shm.mapped) : new DataView(readBuffer.buffer);
  let [change, frames, salt1, salt2] = [-1, -1, -1, -1];
  return () => {
    if (!shm.open) return true;
    if (!shm.mapped && readSync(shm.fd, readBuffer, 0, HEADER_BYTES, 0) < HEADER_BYTES) return true;
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

/** The WAL-index header's first copy and its checksum: the bytes a look compares. */
const HEADER_BYTES = 48;

interface HeldFile {
  fd: number;
  open: boolean;
  /** the header in the file's shared mapping (null: read with readSync instead) */
  mapped: ArrayBuffer | null;
  unmap: () => void;
}

const held = new WeakMap<Database, HeldFile[]>();

/** Closes the descriptors the database's change watches read: only once the database itself is closed. */
export function releaseChangeWatches(db: Database): void {
  for (const h of held.get(db) ?? []) {
    h.open = false;
    h.mapped = null;
    h.unmap();
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
  const h: HeldFile = { fd, open: true, mapped: null, unmap: () => {} };
  const map = mapHeader(fd);
  if (map) [h.mapped, h.unmap] = [map.header, map.unmap];
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

const PROT_READ = 1;
const MAP_SHARED = 1;

/** libc's mmap and munmap, loaded on the first file-backed database (null where libc cannot be reached). */
let libc: ReturnType<typeof loadLibc> | undefined;

function loadLibc() {
  try {
    const name = process.platform === "darwin" ? "libc.dylib" : "libc.so.6";
    return dlopen(name, {
      mmap: { args: [FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.i32, FFIType.i32, FFIType.i64], returns: FFIType.ptr },
      munmap: { args: [FFIType.ptr, FFIType.u64], returns: FFIType.i32 },
    }).symbols;
  } catch {
    return null;
  }
}

/** The header's bytes, mapped shared and read-only from the held descriptor (which stays open); null if it can't be. */
function mapHeader(fd: number): { header: ArrayBuffer; unmap: () => void } | null {
  // a file shorter than the header (not yet initialised) would fault on reading the map: read it instead
  if (fstatSync(fd).size < HEADER_BYTES) return null;
  if (libc === undefined) libc = loadLibc();
  const c = libc;
  if (!c) return null;
  const at = c.mmap(null, HEADER_BYTES, PROT_READ, MAP_SHARED, fd, 0);
  // MAP_FAILED is (void *) -1, which arrives as a bigint
  if (typeof at !== "number" || at <= 0) return null;
  return { header: toArrayBuffer(at, 0, HEADER_BYTES), unmap: () => void c.munmap(at, HEADER_BYTES) };
}
