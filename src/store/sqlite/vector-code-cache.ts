import type { Database as Db } from "bun:sqlite";
import {
  CACHE_BYTES,
  codeAt,
  dropCode,
  HELD_CODE_MEMORY,
  type HeldCodes,
  holdCodes,
  makeRoom,
  mostlyDropped,
  nearestCodes,
  putCode,
} from "../shared/held-codes.ts";
import { CODE_BITS, vectorCoder } from "../shared/vector-codes.ts";
import { vectorFromBlob } from "../shared/vector-blob.ts";

/**
 * A deployment's binary codes held in memory, scanned in WebAssembly (hamming-scan.ts): 100,000 codes of 2,048 bits
 * in a few milliseconds, where sqlite-vec's KNN over the same codes took 40–90 ms (its build counts bits in software
 * and reads every code through SQLite pages). One process owns a data dir, so the process's copy can be kept right:
 * - loaded from the codes table's own storage (sqlite-vec's shadow tables: per partition, chunks of 1,024 codes with
 *   a validity bitmap and their rowids), about 60 ms for 100,000 codes — through vec0 itself it took 10 s;
 * - every write to the codes table notes its rowid (`touched`); the next search on that database looks each noted row
 *   up as committed (the deployment it is in now, or gone) and adds, replaces or drops its code: a rolled-back write
 *   leaves nothing behind, and a rowid reused by another deployment is never searched as this one's;
 * - held within a byte budget across deployments, least recently searched dropped first (shared/held-codes.ts).
 * The layout is sqlite-vec 0.1.9's (the version the binary embeds); `readShadow` checks it and a search falls back to
 * sqlite-vec's own KNN when it does not hold.
 */

export { CACHE_BYTES };
const budgets = new WeakMap<Db, number>();

/** The bytes of codes a database's searches may hold (0: none, every search goes to sqlite-vec). */
export function setCodeBudget(db: Db, bytes: number): void {
  budgets.set(db, bytes);
  for (const s of states.get(db)?.values() ?? []) s.held.clear();
}
/** More noted rows than this since the last search: the held codes are dropped and read afresh (cheaper). */
const TOUCHED_MAX = 2000;
const CODE_BYTES = CODE_BITS / 8;

interface DbState {
  held: Map<string, HeldCodes>;
  touched: Set<number>;
  /** the shadow layout did not hold: every search goes to sqlite-vec */
  unusable: boolean;
}

/** Per database, per codes table. */
const states = new WeakMap<Db, Map<string, DbState>>();
const stateOf = (db: Db, table: string): DbState => {
  let tables = states.get(db);
  if (!tables) {
    tables = new Map();
    states.set(db, tables);
  }
  let s = tables.get(table);
  if (!s) {
    s = { held: new Map(), touched: new Set(), unusable: false };
    tables.set(table, s);
  }
  return s;
};

/** A write to the codes table: the row is looked up again before the next search reads held codes. */
export function touchCode(db: Db, table: string, id: number): void {
  const s = states.get(db)?.get(table);
  if (!s || s.held.size === 0) return;
  s.touched.add(id);
  if (s.touched.size > TOUCHED_MAX) dropHeldCodes(db, table);
}

/** Forgets every held code of the database (the codes table was recreated or rebuilt). */
export function dropHeldCodes(db: Db, table: string, deploymentId?: string): void {
  const s = states.get(db)?.get(table);
  if (!s) return;
  if (deploymentId === undefined) {
    s.held.clear();
    s.touched.clear();
  } else s.held.delete(deploymentId);
}

const deploymentOf = (shardKey: string) => shardKey.slice(0, shardKey.lastIndexOf("#"));

interface ShadowChunk {
  size: number;
  validity: Uint8Array;
  rowids: Uint8Array;
  vectors: Uint8Array;
}

/** A deployment's live codes straight from the codes table's shadow tables; null when the layout is not the known one. */
function readShadow(db: Db, table: string, shards: string[]): { ids: number[]; codes: Uint8Array[] } | null {
  let rows: ShadowChunk[];
  try {
    const q = db.query<ShadowChunk, [string]>(
      `SELECT c.size, c.validity, c.rowids, v.vectors FROM ${table}_chunks c JOIN ${table}_vector_chunks00 v ON v.rowid = c.chunk_id WHERE c.partition00 = ? ORDER BY c.chunk_id`,
    );
    rows = shards.flatMap((k) => q.all(k));
    // the vectors beside the codes, read by the search that ranks the candidates
    db.query(`SELECT rowid, value00 FROM ${table}_auxiliary LIMIT 0`).all();
  } catch {
    return null;
  }
  const ids: number[] = [];
  const codes: Uint8Array[] = [];
  for (const r of rows) {
    if (r.validity.length * 8 < r.size || r.rowids.length !== r.size * 8 || r.vectors.length !== r.size * CODE_BYTES) return null;
    const rowids = new DataView(r.rowids.buffer, r.rowids.byteOffset, r.rowids.byteLength);
    for (let i = 0; i < r.size; i++) {
      if (((r.validity[i >> 3] as number) & (1 << (i & 7))) === 0) continue;
      ids.push(Number(rowids.getBigInt64(i * 8, true)));
      codes.push(codeAt(r.vectors, i));
    }
  }
  return { ids, codes };
}

/**
 * The held codes of one deployment over a codes table, searched in memory: `candidates` returns the rowids of the
 * `m` codes nearest the query's (Hamming), or null when they cannot be held (over budget, unknown layout) and the
 * caller searches with sqlite-vec instead.
 */
export function createCodeCache(db: Db, table: string, shards: (deploymentId: string) => string[]) {
  const s = stateOf(db, table);
  const where = (id: number) =>
    db.query<{ d: string; vector: Uint8Array }, [number]>(`SELECT deployment_id AS d, vector FROM ${table} WHERE rowid = ?`).get(id);

  /** Brings held codes up to the committed rows of every noted rowid. */
  function settle(): void {
    if (s.touched.size === 0) return;
    const ids = [...s.touched];
    s.touched.clear();
    for (const id of ids) {
      const row = where(id);
      const owner = row ? deploymentOf(row.d) : null;
      for (const [d, h] of s.held) if (d !== owner) dropCode(h, id);
      const h = owner === null ? undefined : s.held.get(owner);
      if (!h || !row) continue;
      const v = vectorFromBlob(row.vector);
      putCode(h, id, vectorCoder(v.length).encode(v));
    }
  }

  /** Slots the deployment's codes take in storage (an upper bound of its codes), without reading them. */
  const slots = (keys: string[]) => {
    try {
      return (
        db
          .query<{ n: number | null }, string[]>(
            `SELECT sum(size) AS n FROM ${table}_chunks WHERE partition00 IN (${keys.map(() => "?").join(",")})`,
          )
          .get(...keys)?.n ?? 0
      );
    } catch {
      return null;
    }
  };

  function load(deploymentId: string): HeldCodes | null {
    const keys = shards(deploymentId);
    const upTo = slots(keys);
    // more than the budget holds: searched with sqlite-vec, without reading the codes first
    if (upTo !== null && !makeRoom(s.held, (h) => h, upTo * HELD_CODE_MEMORY, budgets.get(db) ?? CACHE_BYTES)) return null;
    const read = upTo === null ? null : readShadow(db, table, keys);
    if (!read) {
      s.unusable = true;
      return null;
    }
    const h = holdCodes(read.ids, (i) => read.codes[i] as Uint8Array);
    s.held.set(deploymentId, h);
    return h;
  }

  return {
    candidates(deploymentId: string, query: Float32Array, m: number): number[] | null {
      if (s.unusable) return null;
      settle();
      let h = s.held.get(deploymentId);
      // a held set mostly of dropped rows is read afresh (compacted)
      if (h && mostlyDropped(h)) {
        s.held.delete(deploymentId);
        h = undefined;
      }
      h ??= load(deploymentId) ?? undefined;
      if (!h) return null;
      return nearestCodes(h, query, m);
    },
  };
}
