import type { SQL } from "bun";
import {
  CACHE_BYTES,
  candidatesFor,
  dropCode,
  HELD_CODE_MEMORY,
  type HeldCodes,
  holdCodes,
  liveCodes,
  makeRoom,
  mostlyDropped,
  nearestCodes,
  putCode,
} from "../shared/held-codes.ts";
import { CODE_BITS, vectorCoder } from "../shared/vector-codes.ts";
import type { Raw } from "./repos/values.ts";

/**
 * A deployment's vectors searched on a PostgreSQL node as on the embedded SQLite: its binary codes held in this
 * node's memory and scanned in WebAssembly (shared/held-codes.ts), then the candidates' exact cosine distances
 * computed by pgvector over their stored vectors. pgvector's HNSW graph with an iterative, filtered scan took 52–63 ms
 * p95 at 100k chunks for recall@10 0.965 (BENCHMARKS.md).
 *
 * Several nodes write to the same database, so a node's copy is checked at every search, in the same statement
 * that ranks the candidates: migrations/009_vector_codes.sql keeps a generation per deployment that every statement
 * changing its vectors raises (a trigger on chunk_vectors, in the writer's transaction), and which chunks each
 * generation added or removed. A search whose generation is not the copy's brings the copy up to date from those
 * changes (or reads it afresh: the changes were let go, the table was recreated) and searches again. The ranking
 * returned is always of the codes as committed when it was ranked.
 */

/** Up to this many vectors a deployment is ranked exactly by pgvector over its rows (its copy only tells the size). */
export const EXACT_MAX = 2_000;
/** The whole vector table's generation (recreated: every copy is read afresh). */
const TABLE_ROW = "*";

export interface VectorHit {
  id: number;
  distance: number;
}

interface Copy {
  held: HeldCodes;
  gen: number;
  table: number;
}

/** pgvector's text form; float32 values printed exactly. */
export const vectorLiteral = (v: Float32Array): string => `[${Array.from(v).join(",")}]`;
/** A deployment found over the budget is searched another way this long before it is counted again. */
const OVER_BUDGET_MS = 10_000;
/** A vector's code from pgvector's binary form (vector_send: dimension, unused, then big-endian float4s). */
function codeOfSent(sent: Uint8Array): Uint8Array {
  const view = new DataView(sent.buffer, sent.byteOffset, sent.byteLength);
  const v = new Float32Array(view.getUint16(0));
  for (let i = 0; i < v.length; i++) v[i] = view.getFloat32(4 + 4 * i);
  return vectorCoder(v.length).encode(v);
}

/** Codes of chunks' vectors into chunk_codes (with the vectors, in their transaction; or computed for older rows). */
export async function insertCodes(tx: SQL, deploymentId: string, ids: number[], codes: Uint8Array[]): Promise<void> {
  if (ids.length === 0) return;
  await tx`INSERT INTO chunk_codes (chunk_id, deployment_id, code)
    SELECT id, ${deploymentId}, decode(c, 'base64') FROM unnest(${tx.array(ids, "INT8")}::bigint[],
      ${tx.array(
        codes.map((c) => Buffer.from(c).toString("base64")),
        "TEXT",
      )}::text[]) AS u(id, c)
    ON CONFLICT (chunk_id) DO NOTHING`;
}

export function createPgCodeCache(sql: SQL, opts: { budgetBytes?: number } = {}) {
  const budget = opts.budgetBytes ?? CACHE_BYTES;
  const copies = new Map<string, Copy>();
  /** copies being read: searches that arrive meanwhile wait for the same read */
  const reading = new Map<string, Promise<Copy | null>>();
  /** deployments found over the budget, and when */
  const over = new Map<string, number>();

  const forget = (deploymentId: string) => copies.delete(deploymentId);

  /**
   * A deployment's codes and generations read in one snapshot; null when they are over the budget. Vectors written
   * before codes were get theirs computed here and stored (the next node to read them finds them).
   */
  async function read(deploymentId: string): Promise<Copy | null> {
    const got = await sql.begin(async (tx) => {
      await tx`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`;
      const g = ((await tx`SELECT
          coalesce((SELECT gen FROM vector_generations WHERE deployment_id = ${deploymentId}), 0) AS gen,
          coalesce((SELECT gen FROM vector_generations WHERE deployment_id = ${TABLE_ROW}), 0) AS tbl,
          (SELECT count(*) FROM chunk_vectors WHERE deployment_id = ${deploymentId}) AS n,
          (SELECT count(*) FROM chunk_codes WHERE deployment_id = ${deploymentId}) AS coded`) as Raw[])[0] as Raw;
      if (!makeRoom(copies, (c) => c.held, Number(g.n) * HELD_CODE_MEMORY, budget)) {
        if (over.size > 10_000) over.clear();
        over.set(deploymentId, performance.now());
        return null;
      }
      const packed = ((await tx`SELECT string_agg(int8send(c.chunk_id) || c.code, ''::bytea) AS rows FROM chunk_codes c
          WHERE c.deployment_id = ${deploymentId}`) as Raw[])[0]?.rows as Uint8Array | null;
      // vectors without a code (written before codes were)
      const older =
        Number(g.coded) < Number(g.n)
          ? ((await tx`SELECT v.chunk_id, vector_send(v.embedding) AS sent FROM chunk_vectors v
              WHERE v.deployment_id = ${deploymentId} AND NOT EXISTS (SELECT 1 FROM chunk_codes c WHERE c.chunk_id = v.chunk_id)`) as Raw[])
          : [];
      return { gen: Number(g.gen), table: Number(g.tbl), packed, older };
    });
    if (!got) return null;
    const ids: number[] = [];
    const codes: Uint8Array[] = [];
    const row = 8 + CODE_BITS / 8;
    if (got.packed) {
      const view = new DataView(got.packed.buffer, got.packed.byteOffset, got.packed.byteLength);
      for (let at = 0; at + row <= got.packed.byteLength; at += row) {
        ids.push(Number(view.getBigInt64(at)));
        codes.push(got.packed.subarray(at + 8, at + row));
      }
    }
    const computed = got.older.map((r) => ({ id: Number(r.chunk_id), code: codeOfSent(r.sent as Uint8Array) }));
    for (const c of computed) {
      ids.push(c.id);
      codes.push(c.code);
    }
    if (computed.length > 0) await store(deploymentId, computed);
    const copy = { held: holdCodes(ids, (i) => codes[i] as Uint8Array), gen: got.gen, table: got.table };
    copies.set(deploymentId, copy);
    return copy;
  }

  function readOnce(deploymentId: string): Promise<Copy | null> {
    const pending = reading.get(deploymentId);
    if (pending) return pending;
    const p = read(deploymentId).finally(() => reading.delete(deploymentId));
    reading.set(deploymentId, p);
    return p;
  }

  /** Codes computed for older vectors, stored; a chunk deleted meanwhile (or a recreated table) just skips them. */
  async function store(deploymentId: string, computed: { id: number; code: Uint8Array }[]): Promise<void> {
    for (let i = 0; i < computed.length; i += 5000) {
      const part = computed.slice(i, i + 5000);
      try {
        await sql.begin(async (tx) => {
          // only chunks whose vectors are still there (the foreign key alone would fail the whole batch)
          const live = new Set(
            ((await tx`SELECT chunk_id FROM chunk_vectors WHERE chunk_id = ANY(${sql.array(
              part.map((c) => c.id),
              "INT8",
            )}::bigint[]) FOR SHARE`) as Raw[]).map((r) => Number(r.chunk_id)),
          );
          const kept = part.filter((c) => live.has(c.id));
          await insertCodes(
            tx,
            deploymentId,
            kept.map((c) => c.id),
            kept.map((c) => c.code),
          );
        });
      } catch {
        // the vector table was recreated meanwhile: computed again by the next read
      }
    }
  }

  /**
   * The copy brought up to date with the changes committed since its generation, or forgotten (read afresh by the
   * next search) when it cannot be: the changes were let go, the table recreated, the deployment dropped.
   */
  async function update(deploymentId: string, copy: Copy): Promise<void> {
    const rows = (await sql`WITH g AS (SELECT gen, floor FROM vector_generations WHERE deployment_id = ${deploymentId})
      SELECT coalesce((SELECT gen FROM g), 0) AS gen, coalesce((SELECT floor FROM g), 0) AS floor,
             coalesce((SELECT gen FROM vector_generations WHERE deployment_id = ${TABLE_ROW}), 0) AS tbl,
             c.chunk_id, v.chunk_id IS NOT NULL AS present, k.code, CASE WHEN v.chunk_id IS NOT NULL AND k.code IS NULL THEN vector_send(v.embedding) END AS sent
      FROM (SELECT 1) one
      LEFT JOIN (SELECT DISTINCT chunk_id FROM vector_changes WHERE deployment_id = ${deploymentId} AND gen > ${copy.gen}) c ON true
      LEFT JOIN chunk_vectors v ON v.chunk_id = c.chunk_id AND v.deployment_id = ${deploymentId}
      LEFT JOIN chunk_codes k ON k.chunk_id = v.chunk_id`) as Raw[];
    const head = rows[0] as Raw;
    const gen = Number(head.gen);
    if (Number(head.tbl) !== copy.table || gen < copy.gen || Number(head.floor) > copy.gen) {
      forget(deploymentId);
      return;
    }
    for (const r of rows) {
      if (r.chunk_id === null) continue;
      const id = Number(r.chunk_id);
      if (!r.present) dropCode(copy.held, id);
      else putCode(copy.held, id, r.code ? (r.code as Uint8Array) : codeOfSent(r.sent as Uint8Array));
    }
    copy.gen = gen;
    if (mostlyDropped(copy.held)) forget(deploymentId);
  }

  return {
    /**
     * The deployment's k nearest vectors by cosine distance (exact for EXACT_MAX vectors or fewer), nearest first;
     * null when its codes are over the budget (the caller searches another way).
     */
    async search(deploymentId: string, query: Float32Array, k: number): Promise<VectorHit[] | null> {
      const overAt = over.get(deploymentId);
      if (overAt !== undefined && performance.now() - overAt < OVER_BUDGET_MS) return null;
      for (let attempt = 0; attempt < 4; attempt++) {
        const copy = copies.get(deploymentId) ?? (await readOnce(deploymentId));
        if (!copy) return null;
        copy.held.usedAt = performance.now();
        const q = vectorLiteral(query);
        // a small deployment is ranked exactly by pgvector through the deployment index (twice as fast as sending
        // every id); `+ 0` keeps the HNSW index, which would stop short of k rows, out of the ordering
        const small = liveCodes(copy.held) <= EXACT_MAX;
        const rows = (
          small
            ? await sql`WITH g AS (SELECT
                coalesce((SELECT gen FROM vector_generations WHERE deployment_id = ${deploymentId}), 0) AS gen,
                coalesce((SELECT gen FROM vector_generations WHERE deployment_id = ${TABLE_ROW}), 0) AS tbl)
              SELECT g.gen, g.tbl, r.id, r.distance FROM g LEFT JOIN LATERAL (
                SELECT chunk_id AS id, embedding <=> ${q}::vector AS distance FROM chunk_vectors WHERE deployment_id = ${deploymentId}
                ORDER BY (embedding <=> ${q}::vector) + 0, chunk_id LIMIT ${k}) r ON true`
            : await sql`WITH g AS (SELECT
                coalesce((SELECT gen FROM vector_generations WHERE deployment_id = ${deploymentId}), 0) AS gen,
                coalesce((SELECT gen FROM vector_generations WHERE deployment_id = ${TABLE_ROW}), 0) AS tbl)
              SELECT g.gen, g.tbl, r.id, r.distance FROM g LEFT JOIN LATERAL (
                SELECT chunk_id AS id, embedding <=> ${q}::vector AS distance FROM chunk_vectors
                WHERE chunk_id = ANY(${sql.array(nearestCodes(copy.held, query, candidatesFor(k)), "INT8")}::bigint[])
                  AND deployment_id = ${deploymentId}
                ORDER BY 2, 1 LIMIT ${k}) r ON true`
        ) as Raw[];
        const head = rows[0] as Raw;
        const current = Number(head.gen) === copy.gen && Number(head.tbl) === copy.table;
        // the small one's ranking is the table's own, right whatever changed; its copy still follows (it may grow)
        if (!current) await update(deploymentId, copy);
        if (current || small) return rows.filter((r) => r.id !== null).map((r) => ({ id: Number(r.id), distance: Number(r.distance) }));
      }
      return null;
    },
    /** Every copy let go (the vector table was recreated by this node). */
    clear(): void {
      copies.clear();
      over.clear();
    },
  };
}
