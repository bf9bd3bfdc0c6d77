import type { SQL } from "bun";
import type { ChunkRow, IndexedChunk, NewChunk } from "../contract/chunk-index.contract.ts";
import { stagingDeployment, toIndexedChunk } from "../contract/chunk-index.contract.ts";
import { addPostings, countTerms, lockDeployment, MAX_TERM_CHARS, rebuildKey, termOf } from "./keyword-postings.pg.ts";
import { createPgKeywordReindex } from "./keyword-reindex.pg.ts";
import type { Raw } from "./repos/values.ts";
import { vectorFromBlob } from "../shared/vector-blob.ts";
import { vectorCoder } from "../shared/vector-codes.ts";
import { createPgCodeCache, insertCodes, vectorLiteral } from "./vector-codes.pg.ts";

/** A count, id or score cell of a raw row (int8 and aggregates arrive as strings). */
const num = (v: unknown): number => Number(v);

/**
 * The hybrid index on PostgreSQL + pgvector (chunk-index.contract.ts). Keyword ranking is FTS5's bm25(fts, 1.0, 0.5) computed in SQL over our own per-deployment postings
 * (kw_stats, kw_terms, kw_postings; see migrations/001_retrieval.sql), counted from the same analyzed terms the
 * SQLite index holds (keyword-postings.pg.ts), so scores — not just orderings — match SQLite's. Vectors are pgvector
 * (cosine, HNSW) searched with iterative index scans filtered by deployment. A document's chunk, keyword and
 * vector rows are written in one transaction.
 */

export { MAX_TERM_CHARS, termOf };

/** FTS5's bm25() constants and the column weights the SQLite index uses (text 1.0, heading_path 0.5). */
const K1 = 1.2;
const B = 0.75;
const HEADING_WEIGHT = 0.5;

const VEC_TABLE = "chunk_vectors";
/** Any number the nodes agree on (7201512 migrations, 7201514 db copy): serialises the vector table's set-up. */
const VECTOR_SETUP_LOCK = 7_201_515;
/**
 * HNSW search breadth for k results: max(400, 4k), at most 1000 (pgvector's ceiling). Chosen from the measured
 * curve (BENCHMARKS.md, pgvector HNSW recall sections): on 100k hashed bag-of-words chunks with the HNSW_INDEX
 * graph, recall@10 0.83 at 100, 0.92 at 200, 0.965 at 400 — the least of the measured values past 0.95; recall@50
 * at 400: 1.0 on SciFact (5k real embeddings), 0.97 on 100k word-vectors embeddings (default graph). A small
 * deployment beside a large one is searched exactly (the planner takes the deployment index): recall 1.0.
 */
export const defaultEfSearch = (k: number): number => Math.min(1000, Math.max(400, 4 * k));

export { vectorLiteral };

const CHUNK_COLUMNS =
  "id, deployment_id, document_id, ord, source, text, heading_path, page_start, page_end, row_start, row_end, token_count, text_hash";

/**
 * The vector table's HNSW index (cosine), denser than pgvector's defaults (m 16, ef_construction 64): on 100k
 * hashed bag-of-words chunks searched with short claims (every chunk far from the query, distances close together)
 * the default graph kept recall@10 at 0.84 with ef_search 400 and 0.93 at 1000, pgvector's ceiling; m 32 /
 * ef_construction 128 reaches 0.92 at ef_search 200 (BENCHMARKS.md, "pgvector HNSW recall against exact search").
 * It costs about twice the build time and index size. An index built before keeps its own parameters until the
 * vector table is recreated (a reindex).
 */
const HNSW_INDEX = `CREATE INDEX ${VEC_TABLE}_hnsw ON ${VEC_TABLE} USING hnsw (embedding vector_cosine_ops) WITH (m = 32, ef_construction = 128)`;
/** Bytes of one packed posting: chunk id (int8), tf in the text, tf in the heading, the row's length (int4 each), big-endian. */
const POSTING_BYTES = 20;

/**
 * The `limit` best chunks by BM25 (lowest negative score first, then id) from keywordSearch's rows: per searched
 * term its df and packed postings, each row with the deployment's N and tokens.
 */
function rankPostings(rows: Raw[], limit: number): { id: number; score: number }[] {
  const first = rows[0];
  if (!first) return [];
  const n = num(first.chunks);
  const avgdl = Math.max(num(first.tokens) / Math.max(n, 1), 1e-9);
  const scores = new Map<number, number>();
  for (const r of rows) {
    const df = num(r.df);
    const idf = Math.max(Math.log((n - df + 0.5) / (df + 0.5)), 1e-6);
    const packed = r.postings as Uint8Array | null;
    if (!packed) continue;
    const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
    for (let at = 0; at + POSTING_BYTES <= packed.byteLength; at += POSTING_BYTES) {
      const id = Number(view.getBigInt64(at));
      const f = view.getInt32(at + 8) + HEADING_WEIGHT * view.getInt32(at + 12);
      const len = view.getInt32(at + 16);
      const s = (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * len) / avgdl));
      scores.set(id, (scores.get(id) ?? 0) - s);
    }
  }
  return best(scores, limit);
}

/** The `limit` lowest scores, then lowest ids, in order: sorted in rounds of 2·limit, the rest compared to the cut. */
function best(scores: Map<number, number>, limit: number): { id: number; score: number }[] {
  const order = (a: { id: number; score: number }, b: { id: number; score: number }) => a.score - b.score || a.id - b.id;
  let kept: { id: number; score: number }[] = [];
  let cut: { id: number; score: number } | null = null;
  for (const [id, score] of scores) {
    if (cut && (score > cut.score || (score === cut.score && id > cut.id))) continue;
    kept.push({ id, score });
    if (kept.length >= 2 * limit) {
      kept = kept.sort(order).slice(0, limit);
      cut = kept[limit - 1] ?? null;
    }
  }
  return kept.sort(order).slice(0, limit);
}

export async function createPgChunkIndex(sql: SQL, opts: { efSearch?: (k: number) => number; codeBudgetBytes?: number } = {}) {
  const efSearch = opts.efSearch ?? defaultEfSearch;
  // vectors are searched from the codes this node holds; pgvector's HNSW index when they are over the budget
  const codes = createPgCodeCache(sql, { budgetBytes: opts.codeBudgetBytes });
  /** Runs `f` in the caller's transaction when there is one, else in a new one. */
  const within = <T>(tx: SQL | undefined, f: (tx: SQL) => Promise<T>): Promise<T> => (tx ? f(tx) : (sql.begin(f) as Promise<T>));
  const vecExists = async () => (((await sql`SELECT to_regclass(${VEC_TABLE}) IS NOT NULL AS ok`) as Raw[])[0]?.ok as boolean) ?? false;
  let vec = await vecExists();

  async function insertVectors(tx: SQL, deploymentId: string, ids: number[], vectors: Float32Array[]): Promise<void> {
    if (ids.length === 0) return;
    await tx`INSERT INTO chunk_vectors (chunk_id, deployment_id, embedding)
      SELECT id, ${deploymentId}, v::vector FROM unnest(${sql.array(ids, "INT8")}::bigint[], ${sql.array(vectors.map(vectorLiteral), "TEXT")}::text[]) AS u(id, v)`;
    await insertCodes(tx, deploymentId, ids, vectors.map((v) => vectorCoder(v.length).encode(v)));
  }

  /**
   * The deployment's k nearest vectors through the HNSW index with pgvector's iterative scan in strict order: the
   * index keeps scanning until k rows of THIS deployment are found, so a small tenant among large ones still gets k
   * results, in exact distance order.
   */
  async function hnswSearch(deploymentId: string, query: Float32Array, k: number): Promise<{ id: number; distance: number }[]> {
    if (!vec) return [];
    const q = vectorLiteral(query);
    const rows = (await sql.begin(async (tx) => {
      await tx`SELECT set_config('hnsw.iterative_scan', 'strict_order', true), set_config('hnsw.ef_search', ${String(efSearch(k))}, true)`;
      return tx`SELECT chunk_id AS id, embedding <=> ${q}::vector AS distance FROM chunk_vectors
        WHERE deployment_id = ${deploymentId} ORDER BY embedding <=> ${q}::vector LIMIT ${k}`;
    })) as Raw[];
    return rows.map((r) => ({ id: num(r.id), distance: num(r.distance) }));
  }

  /**
   * Chunk rows with ids allocated up front (so they come back in order); `documentIds` one per chunk; kw_length
   * null = not keyword-indexed yet. `givenIds`: db copy keeps the source's ids (and moves the sequence past them).
   */
  async function insertRows(
    tx: SQL,
    deploymentId: string,
    documentIds: string[],
    chunks: NewChunk[],
    lengths: (number | null)[],
    givenIds?: number[],
  ): Promise<number[]> {
    const ids =
      givenIds ??
      ((await tx`SELECT nextval(pg_get_serial_sequence('chunks', 'id')) AS id FROM generate_series(1, ${chunks.length})`) as Raw[]).map(
        (r) => num(r.id),
      );
    // one column of the rows, as the array unnest() reads it
    const ints = (f: (c: NewChunk, i: number) => number | null) => sql.array(chunks.map(f), "INT4");
    const texts = (f: (c: NewChunk, i: number) => string | null) => sql.array(chunks.map(f), "TEXT");
    await tx`INSERT INTO chunks (id, deployment_id, document_id, ord, source, text, heading_path, page_start, page_end, row_start, row_end, token_count, text_hash, kw_length, lang, staged_terms, staged_heading_terms)
      SELECT u.id, ${deploymentId}, u.doc, u.ord, u.source, u.text, u.heading, u.ps, u.pe, u.rs, u.re, u.tc, u.hash, u.len, u.lang, u.st, u.sh
      FROM unnest(${sql.array(ids, "INT8")}::bigint[], ${sql.array(documentIds, "TEXT")}::text[],
                  ${ints((c) => c.ord)}::int[], ${texts((c) => c.source)}::text[],
                  ${texts((c) => c.text)}::text[], ${texts((c) => c.headingPath)}::text[],
                  ${ints((c) => c.pageStart ?? null)}::int[], ${ints((c) => c.pageEnd ?? null)}::int[],
                  ${ints((c) => c.rowStart ?? null)}::int[], ${ints((c) => c.rowEnd ?? null)}::int[],
                  ${ints((c) => c.tokenCount)}::int[], ${texts((c) => c.textHash)}::text[],
                  ${sql.array(lengths, "INT4")}::int[], ${texts((c) => c.lang ?? null)}::text[],
                  ${texts((c, i) => (lengths[i] === null ? c.terms : null))}::text[],
                  ${texts((c, i) => (lengths[i] === null ? c.headingTerms : null))}::text[])
           AS u(id, doc, ord, source, text, heading, ps, pe, rs, re, tc, hash, len, lang, st, sh)`;
    return ids;
  }

  /**
   * Several documents of one deployment at once (a training batch): their chunk rows, postings, statistics and
   * vectors in a fixed number of statements. Returns each document's chunk ids in order. `ids` (db copy): the
   * chunks' ids in the source, kept.
   */
  async function insertMany(
    deploymentId: string,
    docs: { documentId: string; chunks: NewChunk[]; ids?: number[] }[],
    tx?: SQL,
  ): Promise<number[][]> {
    const chunks = docs.flatMap((d) => d.chunks);
    if (chunks.length === 0) return docs.map(() => []);
    if (docs.some((d) => d.ids && d.ids.length !== d.chunks.length)) throw new Error("insertMany: one id per chunk");
    const givenIds = docs.every((d) => d.ids) ? docs.flatMap((d) => d.ids as number[]) : undefined;
    return within(tx, async (tx) => {
      await lockDeployment(tx, deploymentId);
      const counted = countTerms(chunks.map((c) => ({ terms: c.terms, heading: c.headingTerms })));
      const ids = await insertRows(
        tx,
        deploymentId,
        docs.flatMap((d) => d.chunks.map(() => d.documentId)),
        chunks,
        counted.map((c) => c.length),
        givenIds,
      );
      await addPostings(sql, tx, deploymentId, ids, counted);
      if (vec) {
        const withVectors = chunks.flatMap((c, i) => (c.vector ? [{ id: ids[i] as number, v: c.vector }] : []));
        await insertVectors(
          tx,
          deploymentId,
          withVectors.map((x) => x.id),
          withVectors.map((x) => x.v),
        );
      }
      const out: number[][] = [];
      let at = 0;
      for (const d of docs) {
        out.push(ids.slice(at, at + d.chunks.length));
        at += d.chunks.length;
      }
      return out;
    });
  }

  return {
    ...createPgKeywordReindex(sql),
    hasVectors: () => vec,
    /** One process at a time (a session advisory lock on a reserved connection): the vector table's set-up. */
    async exclusive<T>(fn: () => Promise<T>): Promise<T> {
      const conn = await sql.reserve();
      try {
        await conn`SELECT pg_advisory_lock(${VECTOR_SETUP_LOCK})`;
        try {
          return await fn();
        } finally {
          await conn`SELECT pg_advisory_unlock(${VECTOR_SETUP_LOCK})`;
        }
      } finally {
        await conn.release();
      }
    },
    /** Re-reads whether the vector table exists (another node may have created it). */
    async refresh(): Promise<void> {
      vec = await vecExists();
    },
    async meta(key: string): Promise<string | null> {
      const rows = (await sql`SELECT value FROM index_meta WHERE key = ${key}`) as Raw[];
      return (rows[0]?.value as string | undefined) ?? null;
    },
    async setMeta(key: string, value: string): Promise<void> {
      await sql`INSERT INTO index_meta (key, value) VALUES (${key}, ${value}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    },
    /**
     * (Re)creates the vector table and its HNSW index for `dimension`; drops any previous one (reindex). In the
     * caller's transaction when `tx` is given; `deferHnsw` leaves the HNSW index to buildVectorIndex (bulk loads).
     */
    async createVectorTable(dimension: number | null, tx?: SQL, opts: { deferHnsw?: boolean } = {}): Promise<void> {
      if (dimension !== null && (!Number.isInteger(dimension) || dimension < 1 || dimension > 2000)) {
        throw new Error(`vector dimension ${dimension} is outside 1..2000 (pgvector's HNSW limit for vector)`);
      }
      await within(tx, async (tx) => {
        await tx.unsafe(`DROP TABLE IF EXISTS ${VEC_TABLE}`);
        // every node's held codes are of the old table: the table's generation tells them to read afresh
        await tx`TRUNCATE vector_changes`;
        await tx`TRUNCATE chunk_codes`;
        await tx`INSERT INTO vector_generations AS g (deployment_id, gen) VALUES ('*', 1) ON CONFLICT (deployment_id) DO UPDATE SET gen = g.gen + 1`;
        if (dimension !== null) {
          await tx.unsafe(
            `CREATE TABLE ${VEC_TABLE} (chunk_id bigint PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE, deployment_id text NOT NULL, embedding vector(${dimension}) NOT NULL)`,
          );
          if (!opts.deferHnsw) await tx.unsafe(HNSW_INDEX);
          await tx.unsafe(`CREATE INDEX ${VEC_TABLE}_deployment ON ${VEC_TABLE} (deployment_id)`);
          await tx`SELECT watch_vector_changes()`;
        }
      });
      codes.clear();
      vec = dimension !== null;
    },
    /**
     * Builds the HNSW index a bulk load deferred (createVectorTable with deferHnsw): one build after the rows are in
     * is several times faster than inserting each vector into the graph (db copy of 8,098 vectors of 384 dimensions).
     */
    async buildVectorIndex(tx?: SQL): Promise<void> {
      await within(tx, (tx) => tx.unsafe(HNSW_INDEX));
    },
    /**
     * Chunk rows, their postings and keyword statistics, and their vectors: one transaction — the caller's when `tx`
     * is given (so a document's status can change in the same one), else its own. Returns the ids in order.
     */
    async insert(deploymentId: string, documentId: string, chunks: NewChunk[], tx?: SQL): Promise<number[]> {
      return (await insertMany(deploymentId, [{ documentId, chunks }], tx))[0] ?? [];
    },
    insertMany,
    /**
     * Part of a large document's chunks, written where no search sees them: under the placeholder deployment
     * stagingDeployment(documentId), no keyword rows, no vectors. Returns their ids in order.
     */
    async insertStaged(documentId: string, chunks: NewChunk[], tx?: SQL): Promise<number[]> {
      if (chunks.length === 0) return [];
      return within(tx, (tx) =>
        insertRows(
          tx,
          stagingDeployment(documentId),
          chunks.map(() => documentId),
          chunks,
          chunks.map(() => null),
        ),
      );
    },
    /** Moves up to `limit` staged chunks of a document into its deployment and its keyword index; returns how many. */
    async publishStaged(documentId: string, deploymentId: string, limit: number, tx?: SQL): Promise<number> {
      return within(tx, async (tx) => {
        await lockDeployment(tx, deploymentId);
        const rows = (await tx`SELECT id, staged_terms, staged_heading_terms FROM chunks WHERE document_id = ${documentId}
          AND deployment_id = ${stagingDeployment(documentId)} ORDER BY id LIMIT ${limit} FOR UPDATE`) as Raw[];
        if (rows.length === 0) return 0;
        const ids = rows.map((r) => num(r.id));
        const counted = countTerms(
          rows.map((r) => ({ terms: (r.staged_terms as string | null) ?? "", heading: (r.staged_heading_terms as string | null) ?? "" })),
        );
        await tx`UPDATE chunks c SET deployment_id = ${deploymentId}, kw_length = u.len, staged_terms = NULL, staged_heading_terms = NULL
          FROM unnest(${sql.array(ids, "INT8")}::bigint[], ${sql.array(
            counted.map((c) => c.length),
            "INT4",
          )}::int[]) AS u(id, len) WHERE c.id = u.id`;
        await addPostings(sql, tx, deploymentId, ids, counted);
        return ids.length;
      });
    },
    /** Vectors of chunks already inserted (a staged document's, when it is finished); nothing without a vector table. */
    async insertVectors(deploymentId: string, vectors: { id: number; vector: Float32Array }[], tx?: SQL): Promise<void> {
      if (!vec || vectors.length === 0) return;
      await insertVectors(
        tx ?? sql,
        deploymentId,
        vectors.map((v) => v.id),
        vectors.map((v) => v.vector),
      );
    },
    /** Removes a document's chunks, postings (statistics decremented) and vectors in one transaction (the caller's when given). */
    async deleteDocument(documentId: string, tx?: SQL): Promise<void> {
      await within(tx, async (tx) => {
        const deps = (await tx`SELECT DISTINCT deployment_id FROM chunks WHERE document_id = ${documentId}`) as Raw[];
        for (const d of deps) {
          const deploymentId = d.deployment_id as string;
          await lockDeployment(tx, deploymentId);
          const gone = (await tx`SELECT count(*)::int8 AS n, coalesce(sum(kw_length), 0)::int8 AS tokens FROM chunks
            WHERE document_id = ${documentId} AND deployment_id = ${deploymentId} AND kw_length IS NOT NULL`) as Raw[];
          const touched = (await tx`UPDATE kw_terms t SET df = t.df - x.n
            FROM (SELECT p.term_id, count(*)::int AS n FROM kw_postings p JOIN chunks c ON c.id = p.chunk_id
                  WHERE c.document_id = ${documentId} AND c.deployment_id = ${deploymentId} GROUP BY p.term_id) x
            WHERE t.id = x.term_id RETURNING t.id`) as Raw[];
          await tx`DELETE FROM kw_postings WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = ${documentId} AND deployment_id = ${deploymentId})`;
          if (touched.length > 0)
            await tx`DELETE FROM kw_terms WHERE id = ANY(${sql.array(
              touched.map((r) => num(r.id)),
              "INT8",
            )}::bigint[]) AND df <= 0`;
          await tx`UPDATE kw_stats SET chunks = chunks - ${num(gone[0]?.n)}, tokens = tokens - ${num(gone[0]?.tokens)} WHERE deployment_id = ${deploymentId}`;
          // a rebuild under way counted some of them already (their postings went above, with their terms' df)
          await tx`UPDATE kw_stats s SET chunks = s.chunks - g.n, tokens = s.tokens - g.tokens
            FROM (SELECT count(*)::int8 AS n, coalesce(sum(kw_length_next), 0)::int8 AS tokens FROM chunks
                  WHERE document_id = ${documentId} AND deployment_id = ${deploymentId} AND kw_length_next IS NOT NULL) g
            WHERE s.deployment_id = ${rebuildKey(deploymentId)}`;
        }
        // vectors go with their chunk (ON DELETE CASCADE)
        await tx`DELETE FROM chunks WHERE document_id = ${documentId}`;
      });
    },
    /** Everything indexed for a deployment — chunks, postings, terms, statistics, vectors — when it is deleted. */
    async dropDeployment(deploymentId: string, tx?: SQL): Promise<void> {
      await within(tx, async (tx) => {
        await lockDeployment(tx, deploymentId);
        for (const key of [deploymentId, rebuildKey(deploymentId)]) {
          await tx`DELETE FROM kw_postings WHERE term_id IN (SELECT id FROM kw_terms WHERE deployment_id = ${key})`;
          await tx`DELETE FROM kw_terms WHERE deployment_id = ${key}`;
          await tx`DELETE FROM kw_stats WHERE deployment_id = ${key}`;
        }
        await tx`DELETE FROM kw_reindex WHERE deployment_id = ${deploymentId}`;
        await tx`DELETE FROM chunks WHERE deployment_id = ${deploymentId}`;
        // its vectors went with the chunks; a node still holding its codes finds no generation and lets them go
        await tx`DELETE FROM vector_changes WHERE deployment_id = ${deploymentId}`;
        await tx`DELETE FROM vector_generations WHERE deployment_id = ${deploymentId}`;
      });
    },
    /**
     * BM25 over the deployment's own statistics, as FTS5's bm25(fts, 1.0, 0.5) computes it (lower = better):
     * idf = ln((N − df + 0.5)/(df + 0.5)) (1e-6 when ≤ 0), f = tf(text) + 0.5·tf(heading), D = row length over
     * both columns, avgdl = the deployment's tokens / N; score = −Σ idf·f·(k1+1) / (f + k1·(1 − b + b·D/avgdl)).
     * `terms` are analyzed terms (rag/analyzer), each searched once, as the SQLite index ORs them.
     *
     * One statement reads N, the tokens, and each term's df with its postings packed into one bytea (an index-only
     * scan of kw_postings' primary key per term); the sums are made here. Scoring in SQL grouped every posting by
     * chunk in a hash aggregate: at 100k chunks, 1.6–1.8× the time of this for the same 200 SciFact claims, with the
     * same chunks in the same order (scores within 1e-14; BENCHMARKS.md, "Retrieval latency on SQLite and PostgreSQL").
     */
    async keywordSearch(deploymentId: string, searched: string[], limit: number): Promise<{ id: number; score: number }[]> {
      const terms = [...new Set(searched.map(termOf))];
      if (terms.length === 0 || limit <= 0) return [];
      const rows = (await sql`SELECT s.chunks, s.tokens, t.df,
          (SELECT string_agg(int8send(p.chunk_id) || int4send(p.tf_text) || int4send(p.tf_heading) || int4send(p.len), ''::bytea)
             FROM kw_postings p WHERE p.term_id = t.id) AS postings
        FROM kw_stats s JOIN kw_terms t ON t.deployment_id = s.deployment_id AND t.term = ANY(${sql.array(terms, "TEXT")}::text[])
        WHERE s.deployment_id = ${deploymentId}`) as Raw[];
      return rankPostings(rows, limit);
    },
    /**
     * The deployment's k nearest vectors by cosine distance (1 − cos): from the codes this node holds
     * (vector-codes.pg.ts), else through the HNSW index (hnswSearch).
     */
    async vectorSearch(deploymentId: string, query: Float32Array, k: number): Promise<{ id: number; distance: number }[]> {
      if (!vec) return [];
      return (await codes.search(deploymentId, query, k)) ?? hnswSearch(deploymentId, query, k);
    },
    hnswSearch,
    /** Exact k nearest (sequential scan, no index): the reference the HNSW search is measured against. */
    async exactVectorSearch(deploymentId: string, query: Float32Array, k: number): Promise<{ id: number; distance: number }[]> {
      if (!vec) return [];
      const q = vectorLiteral(query);
      const rows = (await sql.begin(async (tx) => {
        // sorting allowed even where a session prices it out: else the planner may walk the HNSW index after all
        await tx`SELECT set_config('enable_indexscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'on', true)`;
        return tx`SELECT chunk_id AS id, embedding <=> ${q}::vector AS distance FROM chunk_vectors
          WHERE deployment_id = ${deploymentId} ORDER BY embedding <=> ${q}::vector LIMIT ${k}`;
      })) as Raw[];
      return rows.map((r) => ({ id: num(r.id), distance: num(r.distance) }));
    },
    async getChunks(ids: number[]): Promise<IndexedChunk[]> {
      if (ids.length === 0) return [];
      const rows = (await sql.unsafe(`SELECT ${CHUNK_COLUMNS} FROM chunks WHERE id = ANY($1::bigint[])`, [
        sql.array(ids, "INT8"),
      ])) as ChunkRow[];
      return rows.map(toIndexedChunk);
    },
    async allChunks(): Promise<IndexedChunk[]> {
      return ((await sql.unsafe(`SELECT ${CHUNK_COLUMNS} FROM chunks ORDER BY id`)) as ChunkRow[]).map(toIndexedChunk);
    },
    async setVector(id: number, deploymentId: string, v: Float32Array): Promise<void> {
      await insertVectors(sql, deploymentId, [id], [v]);
    },
    async cachedVector(embedderId: string, textHash: string): Promise<Float32Array | null> {
      const r = ((await sql`SELECT vector FROM embedding_cache WHERE embedder_id = ${embedderId} AND text_hash = ${textHash}`) as Raw[])[0];
      if (!r) return null;
      return vectorFromBlob(r.vector as Uint8Array);
    },
    /** Cached vectors of many texts in one round trip, in the order asked (null: not cached). */
    async cachedVectors(embedderId: string, textHashes: string[]): Promise<(Float32Array | null)[]> {
      if (textHashes.length === 0) return [];
      const rows = (await sql`SELECT text_hash, vector FROM embedding_cache WHERE embedder_id = ${embedderId}
        AND text_hash = ANY(${sql.array([...new Set(textHashes)], "TEXT")}::text[])`) as Raw[];
      const found = new Map(rows.map((r) => [r.text_hash as string, vectorFromBlob(r.vector as Uint8Array)]));
      return textHashes.map((h) => found.get(h) ?? null);
    },
    async cacheVector(embedderId: string, textHash: string, v: Float32Array): Promise<void> {
      const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
      await sql`INSERT INTO embedding_cache (embedder_id, text_hash, vector) VALUES (${embedderId}, ${textHash}, ${bytes}) ON CONFLICT DO NOTHING`;
    },
    /** The vectors of these chunks into the embedding cache (identical text embedded once per embedder), in one statement. */
    async cacheVectors(embedderId: string, chunks: NewChunk[], tx?: SQL): Promise<void> {
      const withVectors = chunks.filter((c): c is NewChunk & { vector: Float32Array } => c.vector !== undefined);
      if (withVectors.length === 0) return;
      await (tx ?? sql)`INSERT INTO embedding_cache (embedder_id, text_hash, vector)
        SELECT ${embedderId}, h, decode(v, 'base64') FROM unnest(${sql.array(
          withVectors.map((c) => c.textHash),
          "TEXT",
        )}::text[], ${sql.array(
          withVectors.map((c) => Buffer.from(c.vector.buffer, c.vector.byteOffset, c.vector.byteLength).toString("base64")),
          "TEXT",
        )}::text[]) AS u(h, v)
        ON CONFLICT DO NOTHING`;
    },
    /** How many of a document's chunks are in each place (chunks, keyword-indexed, vectors). */
    /** The keyword postings need no maintenance after a bulk load (FTS5's segment merges have no counterpart here). */
    mergeFts: async () => 0,
    async counts(documentId: string): Promise<{ chunks: number; fts: number; vec: number }> {
      const r =
        (
          (await sql`SELECT count(*)::int AS chunks, count(kw_length)::int AS fts FROM chunks WHERE document_id = ${documentId}`) as Raw[]
        )[0] ?? {};
      const v = vec
        ? ((
            (await sql`SELECT count(*)::int AS n FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id WHERE c.document_id = ${documentId}`) as Raw[]
          )[0]?.n ?? 0)
        : 0;
      return { chunks: num(r.chunks ?? 0), fts: num(r.fts ?? 0), vec: num(v) };
    },
  };
}

export type PgChunkIndex = Awaited<ReturnType<typeof createPgChunkIndex>>;

/**
 * Term statistics for the gate's IDF weights from the deployment's own keyword statistics — the same numbers its
 * BM25 ranking uses. Both are single indexed lookups, and a question's analysis asks for both at once
 * (query-analysis.ts): the document frequencies' query reads N too, and a totalChunks asked while it is in flight
 * takes N from it — one round trip where there were two, and N no older than a query of its own would have read.
 */
export function createPgTermStats(sql: SQL, opts: { cacheMs?: number; now?: () => number } = {}) {
  const cacheMs = opts.cacheMs ?? 5000;
  const now = opts.now ?? Date.now;
  const langs = new Map<string, { l: string[]; at: number }>();
  /** N of a deployment, from a documentFrequencies query still running */
  const pendingTotals = new Map<string, Promise<number>>();
  const readTotal = async (deploymentId: string) => {
    const r = ((await sql`SELECT chunks FROM kw_stats WHERE deployment_id = ${deploymentId}`) as Raw[])[0];
    return r ? num(r.chunks) : 0;
  };
  return {
    async documentFrequencies(deploymentId: string, terms: string[]): Promise<Map<string, number>> {
      const wanted = [...new Set(terms)];
      const out = new Map<string, number>(wanted.map((t) => [t, 0]));
      if (wanted.length === 0) return out;
      const keys = [...new Set(wanted.map(termOf))];
      // N is the row without a term
      const query =
        sql`SELECT term, df FROM kw_terms WHERE deployment_id = ${deploymentId} AND term = ANY(${sql.array(keys, "TEXT")}::text[])
        UNION ALL SELECT NULL, chunks FROM kw_stats WHERE deployment_id = ${deploymentId}` as unknown as Promise<Raw[]>;
      const total = query.then((rows) => num(rows.find((r) => r.term === null)?.df ?? 0));
      // a failed query is reported by this call; a totalChunks waiting on it gets the same error
      total.catch(() => {});
      pendingTotals.set(deploymentId, total);
      try {
        const rows = await query;
        const df = new Map(rows.flatMap((r) => (r.term === null ? [] : [[r.term as string, num(r.df)] as const])));
        for (const t of wanted) out.set(t, df.get(termOf(t)) ?? 0);
        return out;
      } finally {
        if (pendingTotals.get(deploymentId) === total) pendingTotals.delete(deploymentId);
      }
    },
    /**
     * The languages of the deployment's trained documents, the most chunks first; cached briefly (as on SQLite):
     * they choose the languages a question is analyzed in, and a round trip per question adds up.
     */
    async languages(deploymentId: string): Promise<string[]> {
      const t = now();
      const hit = langs.get(deploymentId);
      if (hit && t - hit.at <= cacheMs) return hit.l;
      const rows = (await sql`SELECT lang FROM documents WHERE deployment_id = ${deploymentId} AND status = 'completed'
        AND lang IS NOT NULL GROUP BY lang ORDER BY sum(chunk_count) DESC, lang`) as Raw[];
      const l = rows.map((r) => r.lang as string);
      if (langs.size > 10_000) langs.clear();
      langs.set(deploymentId, { l, at: t });
      return l;
    },
    async totalChunks(deploymentId: string): Promise<number> {
      return pendingTotals.get(deploymentId) ?? readTotal(deploymentId);
    },
  };
}

export type PgTermStats = ReturnType<typeof createPgTermStats>;
