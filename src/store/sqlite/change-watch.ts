import type { Db } from "./db.ts";

/**
 * Says whether anyone — this process or another (the CLI) — has committed to the database since it was last
 * asked. It reads the WAL-index header in the `-shm` file every connection maps: its change counter (bumped by
 * every commit), frame count and salts (new after every WAL restart), as documented in "The WAL-index File
 * Format" (sqlite.org/walformat.html). Reading that is a memory load, where `PRAGMA data_version` costs a read
 * transaction (~9 µs) — too much for a check on every gated request. A torn read only reports a change that did
 * not happen (one cache clear too many).
 *
 * Without a WAL index to map (an in-memory database), it falls back to asking SQLite: this connection's
 * total_changes() and PRAGMA data_version.
 */
export function createChangeWatch(db: Db): () => boolean {
  const header = mapWalIndexHeader(db);
  if (!header) return queryWatch(db);
  let [change, frames, salt1, salt2] = [-1, -1, -1, -1];
  return () => {
    // iChange (offset 8), mxFrame (16) and aSalt (32, 36) of the header's first copy (compared, so byte order is moot)
    const c = header.getUint32(8, true);
    const f = header.getUint32(16, true);
    const s1 = header.getUint32(32, true);
    const s2 = header.getUint32(36, true);
    if (c === change && f === frames && s1 === salt1 && s2 === salt2) return false;
    [change, frames, salt1, salt2] = [c, f, s1, s2];
    return true;
  };
}

function mapWalIndexHeader(db: Db): DataView | null {
  const file = db.filename;
  if (!file || file === ":memory:") return null;
  try {
    const shm = Bun.mmap(`${file}-shm`, { shared: true });
    return shm.byteLength >= 48 ? new DataView(shm.buffer, shm.byteOffset, 48) : null;
  } catch {
    return null;
  }
}

function queryWatch(db: Db): () => boolean {
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
