import type { Database as Db } from "bun:sqlite";
import { candidatesFor, OVERSAMPLE } from "../shared/held-codes.ts";
import { createCodeCache, dropHeldCodes, touchCode } from "./vector-code-cache.ts";
import { CODE_BITS, CODE_SCHEME, vectorCoder } from "../shared/vector-codes.ts";
import { vectorFromBlob } from "../shared/vector-blob.ts";

/**
 * The vectors on SQLite: two sqlite-vec tables, both partitioned by deployment (a search never reads another
 * tenant's rows) and written in the same transaction as their chunk:
 * - chunks_vec: the full float vectors (cosine), searched exactly while the deployment is small (EXACT_MAX);
 * - chunks_vec_codes: a 2,048-bit code per vector (vector-codes.ts), with a copy of the vector beside it (an
 *   auxiliary column: a plain row read by rowid). Past EXACT_MAX vectors a search takes about OVERSAMPLE·k
 *   candidates by Hamming distance over the deployment's codes held in memory (vector-code-cache.ts, scanned in
 *   WebAssembly: a few milliseconds for 100,000) and ranks them by their exact cosine distance. Where the codes
 *   cannot be held, sqlite-vec's KNN over the same codes does it (`quantized`): it costs (vectors scanned) × k, so
 *   the codes of a deployment are spread over SHARDS partitions (rowid mod SHARDS) and each is asked for its
 *   OVERSAMPLE·k/SHARDS nearest (recall@10 0.981 for 16 shards × 10 against 0.976 for one × 150, in 40 % of the
 *   time, 100k vectors). The copy of the vector doubles the space vectors take; reading each candidate's vector
 *   from chunks_vec instead cost 20–300 ms a search (sqlite-vec reads a vector through its 1,024-vector chunk).
 */
export const VEC_TABLE = "chunks_vec";
export const CODES_TABLE = "chunks_vec_codes";
/**
 * Up to this many chunks in a deployment, KNN is exact: a couple of milliseconds, and nothing held in memory
 * (BENCHMARKS.md, "Retrieval latency (one deployment)": recall@10 against exact search and time on both sides).
 */
export const EXACT_MAX = 2_000;
export const SHARDS = 16;
/** The partition of a chunk's code: its deployment and shard. */
const shardKey = (deploymentId: string, id: number) => `${deploymentId}#${id % SHARDS}`;
/** index_meta keys: the code recipe of a complete codes table; the one being built, and how far. */
const READY = "vector_codes";
const BUILDING = "vector_codes_building";
const CURSOR = "vector_codes_cursor";
const COUNT_CACHE_MS = 5000;

const exists = (db: Db, name: string) => db.query("SELECT 1 FROM sqlite_master WHERE name = ?").get(name) !== null;
const meta = (db: Db, key: string) =>
  db.query<{ value: string }, [string]>("SELECT value FROM index_meta WHERE key = ?").get(key)?.value ?? null;
const setMeta = (db: Db, key: string, value: string) =>
  db.run("INSERT INTO index_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [key, value]);
const dropMeta = (db: Db, ...keys: string[]) => {
  for (const k of keys) db.run("DELETE FROM index_meta WHERE key = ?", [k]);
};
const createCodesTable = (db: Db) =>
  db.run(`CREATE VIRTUAL TABLE ${CODES_TABLE} USING vec0(deployment_id TEXT PARTITION KEY, code bit[${CODE_BITS}], +vector blob)`);
const INSERT_CODE = `INSERT INTO ${CODES_TABLE} (rowid, deployment_id, code, vector) VALUES (?, ?, vec_bit(?), ?)`;

/** 1 − cosine similarity, as sqlite-vec's vec_distance_cosine gives it (1 for a zero vector). */
function cosineDistance(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 1 : 1 - dot / Math.sqrt(na * nb);
}

export interface VectorHit {
  id: number;
  distance: number;
}

export function createVectorStore(db: Db, opts: { exactMax?: number } = {}) {
  const exactMax = opts.exactMax ?? EXACT_MAX;
  let vec = exists(db, VEC_TABLE);
  let ready = false;
  let readyCheckedAt = Number.NEGATIVE_INFINITY;
  /** Codes are only trusted once complete (a data dir being migrated is searched exactly meanwhile). */
  const codesReady = () => {
    if (!ready && performance.now() - readyCheckedAt > COUNT_CACHE_MS) {
      readyCheckedAt = performance.now();
      ready = vec && meta(db, READY) === CODE_SCHEME && exists(db, CODES_TABLE);
    }
    return ready;
  };
  const counts = new Map<string, { n: number; at: number }>();
  const chunkCount = (deploymentId: string) => {
    const hit = counts.get(deploymentId);
    if (hit && performance.now() - hit.at <= COUNT_CACHE_MS) return hit.n;
    const n = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM chunks WHERE deployment_id = ?").get(deploymentId)?.n ?? 0;
    if (counts.size > 10_000) counts.clear();
    counts.set(deploymentId, { n, at: performance.now() });
    return n;
  };
  const hasCodes = () => exists(db, CODES_TABLE);
  let codes = vec && hasCodes();

  function exact(deploymentId: string, query: Float32Array, k: number): VectorHit[] {
    return db
      .query<VectorHit, [Float32Array, number, string]>(
        `SELECT rowid AS id, distance FROM ${VEC_TABLE} WHERE embedding MATCH ? AND k = ? AND deployment_id = ?`,
      )
      .all(query, k, deploymentId);
  }

  const shardKeys = (deploymentId: string) => Array.from({ length: SHARDS }, (_, s) => shardKey(deploymentId, s));
  const held = createCodeCache(db, CODES_TABLE, shardKeys);

  /**
   * The codes held in memory (vector-code-cache.ts), then the candidates' exact cosine distances over the vectors
   * kept beside the codes (read in one statement from the table's auxiliary storage; through vec0, a point query
   * per candidate took three times as long); sqlite-vec's KNN when the codes cannot be held.
   */
  function inMemory(deploymentId: string, query: Float32Array, k: number): VectorHit[] {
    const ids = held.candidates(deploymentId, query, candidatesFor(k));
    if (!ids) return quantized(deploymentId, query, k);
    if (ids.length === 0) return [];
    const rows = db
      .query<{ id: number; vector: Uint8Array }, number[]>(
        `SELECT rowid AS id, value00 AS vector FROM ${CODES_TABLE}_auxiliary WHERE rowid IN (${ids.map(() => "?").join(",")})`,
      )
      .all(...ids);
    const hits = rows.map((r) => ({ id: r.id, distance: cosineDistance(query, vectorFromBlob(r.vector)) }));
    return hits.sort((a, b) => a.distance - b.distance || a.id - b.id).slice(0, k);
  }

  function quantized(deploymentId: string, query: Float32Array, k: number): VectorHit[] {
    const code = vectorCoder(query.length).encode(query);
    const nearest = db.query<VectorHit, [Float32Array, Uint8Array, number, string]>(
      `SELECT rowid AS id, vec_distance_cosine(vector, ?) AS distance FROM ${CODES_TABLE} WHERE code MATCH vec_bit(?) AND k = ? AND deployment_id = ?`,
    );
    const perShard = Math.max(4, Math.ceil((k * OVERSAMPLE) / SHARDS));
    const hits = Array.from({ length: SHARDS }, (_, s) => nearest.all(query, code, perShard, `${deploymentId}#${s}`)).flat();
    return hits.sort((a, b) => a.distance - b.distance || a.id - b.id).slice(0, k);
  }

  return {
    hasVectors: () => vec,
    /** (Re)creates both tables for `dimension` (null: none); drops any previous ones (reindex). */
    create(dimension: number | null): void {
      db.run(`DROP TABLE IF EXISTS ${CODES_TABLE}`);
      db.run(`DROP TABLE IF EXISTS ${VEC_TABLE}`);
      dropMeta(db, READY, BUILDING, CURSOR);
      dropHeldCodes(db, CODES_TABLE);
      if (dimension !== null) {
        db.run(
          `CREATE VIRTUAL TABLE ${VEC_TABLE} USING vec0(deployment_id TEXT PARTITION KEY, embedding float[${dimension}] distance_metric=cosine)`,
        );
        createCodesTable(db);
        setMeta(db, READY, CODE_SCHEME);
      }
      vec = dimension !== null;
      codes = vec;
      ready = vec;
    },
    /** A chunk's vector and its code; call inside the writing transaction. */
    insert(id: number, deploymentId: string, v: Float32Array): void {
      if (!vec) return;
      db.run(`INSERT INTO ${VEC_TABLE} (rowid, deployment_id, embedding) VALUES (?, ?, ?)`, [id, deploymentId, v]);
      if (codes) {
        db.run(INSERT_CODE, [id, shardKey(deploymentId, id), vectorCoder(v.length).encode(v), v]);
        touchCode(db, CODES_TABLE, id);
      }
    },
    remove(id: number): void {
      if (!vec) return;
      db.run(`DELETE FROM ${VEC_TABLE} WHERE rowid = ?`, [id]);
      if (codes) {
        db.run(`DELETE FROM ${CODES_TABLE} WHERE rowid = ?`, [id]);
        touchCode(db, CODES_TABLE, id);
      }
    },
    has(id: number): boolean {
      return vec && db.query(`SELECT 1 FROM ${VEC_TABLE} WHERE rowid = ?`).get(id) !== null;
    },
    /** The deployment's k nearest by cosine distance: exact while the deployment is small, else codes + rescoring. */
    search(deploymentId: string, query: Float32Array, k: number): VectorHit[] {
      if (!vec) return [];
      if (!codesReady() || chunkCount(deploymentId) <= exactMax) return exact(deploymentId, query, k);
      return inMemory(deploymentId, query, k);
    },
    exact,
    quantized,
    inMemory,
  };
}

export type VectorStore = ReturnType<typeof createVectorStore>;

/** vec0 rows have no foreign key to cascade through: a deleted deployment's vectors go explicitly. */
export function deleteDeploymentVectors(db: Db, deploymentId: string): void {
  if (exists(db, VEC_TABLE)) db.run(`DELETE FROM ${VEC_TABLE} WHERE deployment_id = ?`, [deploymentId]);
  if (exists(db, CODES_TABLE))
    for (let s = 0; s < SHARDS; s++) db.run(`DELETE FROM ${CODES_TABLE} WHERE deployment_id = ?`, [`${deploymentId}#${s}`]);
  dropHeldCodes(db, CODES_TABLE, deploymentId);
}

/**
 * Builds the codes of a data dir whose vectors predate them (or another code recipe), in short transactions
 * that each record how far they got: a kill -9 loses at most the batch in flight, and the next start resumes
 * there. Chunks written meanwhile get their code from the writer (createVectorStore.insert) and are skipped.
 * Returns the codes written.
 */
export function buildVectorCodes(db: Db, opts: { batch?: number } = {}): number {
  if (!exists(db, VEC_TABLE)) {
    if (exists(db, CODES_TABLE)) db.transaction(() => db.run(`DROP TABLE ${CODES_TABLE}`)).immediate();
    return 0;
  }
  if (meta(db, READY) === CODE_SCHEME && exists(db, CODES_TABLE)) return 0;
  db.transaction(() => {
    if (meta(db, BUILDING) === CODE_SCHEME && exists(db, CODES_TABLE)) return;
    db.run(`DROP TABLE IF EXISTS ${CODES_TABLE}`);
    dropHeldCodes(db, CODES_TABLE);
    createCodesTable(db);
    dropMeta(db, READY);
    setMeta(db, BUILDING, CODE_SCHEME);
    setMeta(db, CURSOR, "0");
  }).immediate();
  const batch = opts.batch ?? 2000;
  const page = db.query<{ id: number; deployment_id: string }, [number, number]>(
    "SELECT id, deployment_id FROM chunks WHERE id > ? ORDER BY id LIMIT ?",
  );
  const vector = db.query<{ embedding: Uint8Array }, [number]>(`SELECT embedding FROM ${VEC_TABLE} WHERE rowid = ?`);
  const coded = db.query(`SELECT 1 FROM ${CODES_TABLE} WHERE rowid = ?`);
  const insert = db.query(INSERT_CODE);
  let written = 0;
  for (;;) {
    const done = db
      .transaction(() => {
        // re-read inside the write lock: another process on the same data dir may be building too
        if (meta(db, READY) === CODE_SCHEME) return true;
        const rows = page.all(Number(meta(db, CURSOR) ?? 0), batch);
        if (rows.length === 0) {
          setMeta(db, READY, CODE_SCHEME);
          dropMeta(db, BUILDING, CURSOR);
          return true;
        }
        for (const r of rows) {
          const v = vector.get(r.id);
          if (!v || coded.get(r.id)) continue;
          const f = vectorFromBlob(v.embedding);
          insert.run(r.id, shardKey(r.deployment_id, r.id), vectorCoder(f.length).encode(f), f);
          written++;
        }
        setMeta(db, CURSOR, String((rows.at(-1) as { id: number }).id));
        return false;
      })
      .immediate();
    if (done) return written;
  }
}
