import type { Db } from "../db.ts";

export interface ChunkRow {
  id: number;
  deployment_id: string;
  document_id: string;
  ord: number;
  source: string;
  text: string;
  heading_path: string;
  page_start: number | null;
  page_end: number | null;
  row_start: number | null;
  row_end: number | null;
  token_count: number;
  text_hash: string;
}

export interface NewChunk {
  ord: number;
  source: string;
  text: string;
  headingPath: string;
  pageStart?: number;
  pageEnd?: number;
  rowStart?: number;
  rowEnd?: number;
  tokenCount: number;
  textHash: string;
  vector?: Float32Array;
}

const VEC_TABLE = "chunks_vec";

/**
 * A large document's chunks are written in many short transactions under this placeholder deployment, which no
 * search can match, and moved to their deployment in one final transaction (publishStaged).
 */
export const stagingDeployment = (documentId: string) => `~staging:${documentId}`;

/**
 * The hybrid index: chunk rows, their FTS5 rows and their vec0 rows always change together inside the
 * caller's transaction, so retrieval never sees a half-indexed document.
 */
export function createChunkIndexRepo(db: Db) {
  const hasVecTable = () => db.query("SELECT 1 FROM sqlite_master WHERE name = ?").get(VEC_TABLE) !== null;
  let vec = hasVecTable();
  const insertChunk = db.query<{ id: number }, (string | number | null)[]>(
    `INSERT INTO chunks (deployment_id, document_id, ord, source, text, heading_path, page_start, page_end, row_start, row_end, token_count, text_hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const insertFts = db.query("INSERT INTO chunks_fts (rowid, text, heading) VALUES (?, ?, ?)");
  return {
    hasVectors: () => vec,
    meta(key: string): string | null {
      return db.query<{ value: string }, [string]>("SELECT value FROM index_meta WHERE key = ?").get(key)?.value ?? null;
    },
    setMeta(key: string, value: string): void {
      db.run("INSERT INTO index_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [key, value]);
    },
    /** (Re)creates the vec0 table for `dimension`; drops any previous one (reindex). */
    createVectorTable(dimension: number | null): void {
      db.run(`DROP TABLE IF EXISTS ${VEC_TABLE}`);
      if (dimension !== null) {
        db.run(`CREATE VIRTUAL TABLE ${VEC_TABLE} USING vec0(deployment_id TEXT PARTITION KEY, embedding float[${dimension}] distance_metric=cosine)`);
      }
      vec = dimension !== null;
    },
    insert(deploymentId: string, documentId: string, chunks: NewChunk[]): number[] {
      const ids: number[] = [];
      for (const c of chunks) {
        const row = insertChunk.get(deploymentId, documentId, c.ord, c.source, c.text, c.headingPath, c.pageStart ?? null, c.pageEnd ?? null, c.rowStart ?? null, c.rowEnd ?? null, c.tokenCount, c.textHash);
        const id = (row as { id: number }).id;
        insertFts.run(id, c.text, c.headingPath);
        if (vec && c.vector) db.run(`INSERT INTO ${VEC_TABLE} (rowid, deployment_id, embedding) VALUES (?, ?, ?)`, [id, deploymentId, c.vector]);
        ids.push(id);
      }
      return ids;
    },
    /** Writes part of a large document's chunks where no search sees them yet; returns their ids. */
    insertStaged(documentId: string, chunks: NewChunk[]): number[] {
      const ids: number[] = [];
      const staging = stagingDeployment(documentId);
      for (const c of chunks) {
        const row = insertChunk.get(staging, documentId, c.ord, c.source, c.text, c.headingPath, c.pageStart ?? null, c.pageEnd ?? null, c.rowStart ?? null, c.rowEnd ?? null, c.tokenCount, c.textHash);
        const id = (row as { id: number }).id;
        insertFts.run(id, c.text, c.headingPath);
        ids.push(id);
      }
      return ids;
    },
    /**
     * Moves up to `limit` staged chunks of a document into its deployment; returns how many moved. Done in short
     * batches: an UPDATE rewrites each row, text included, and one for 40,000 chunks held the thread for 0.5 s.
     */
    publishStaged(documentId: string, deploymentId: string, limit: number): number {
      return db.run(
        "UPDATE chunks SET deployment_id = ? WHERE id IN (SELECT id FROM chunks WHERE document_id = ? AND deployment_id = ? LIMIT ?)",
        [deploymentId, documentId, stagingDeployment(documentId), limit],
      ).changes;
    },
    /** Vectors of chunks already inserted (a staged document's, at publish). */
    insertVectors(deploymentId: string, vectors: { id: number; vector: Float32Array }[]): void {
      if (vec) for (const v of vectors) db.run(`INSERT INTO ${VEC_TABLE} (rowid, deployment_id, embedding) VALUES (?, ?, ?)`, [v.id, deploymentId, v.vector]);
    },
    /**
     * FTS5 maintenance after a bulk load: merges index segments in bounded steps (each its own short write) so
     * a server keeps answering meanwhile. Returns when nothing is left to merge or `maxSteps` were done.
     */
    async mergeFts(opts: { pagesPerStep?: number; maxSteps?: number; pause?: () => Promise<void> } = {}): Promise<number> {
      const changes = () => db.query<{ n: number }, []>("SELECT total_changes() AS n").get()?.n ?? 0;
      let steps = 0;
      for (; steps < (opts.maxSteps ?? 1000); steps++) {
        const before = changes();
        db.run("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('merge', ?)", [opts.pagesPerStep ?? 64]);
        // FTS5 documents this: fewer than two changes means the merge found no work
        if (changes() - before < 2) break;
        await opts.pause?.();
      }
      return steps;
    },
    /** Removes a document's chunks from all three places. */
    deleteDocument(documentId: string): void {
      const ids = db.query<{ id: number }, [string]>("SELECT id FROM chunks WHERE document_id = ?").all(documentId).map((r) => r.id);
      for (const id of ids) {
        db.run("DELETE FROM chunks_fts WHERE rowid = ?", [id]);
        if (vec) db.run(`DELETE FROM ${VEC_TABLE} WHERE rowid = ?`, [id]);
      }
      db.run("DELETE FROM chunks WHERE document_id = ?", [documentId]);
    },
    keywordSearch(deploymentId: string, match: string, limit: number): { id: number; score: number }[] {
      return db
        .query<{ id: number; score: number }, [string, string, number]>(
          `SELECT c.id AS id, bm25(chunks_fts, 1.0, 0.5) AS score FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
            WHERE chunks_fts MATCH ? AND c.deployment_id = ? ORDER BY score LIMIT ?`,
        )
        .all(match, deploymentId, limit);
    },
    vectorSearch(deploymentId: string, query: Float32Array, k: number): { id: number; distance: number }[] {
      if (!vec) return [];
      return db
        .query<{ id: number; distance: number }, [Float32Array, number, string]>(
          `SELECT rowid AS id, distance FROM ${VEC_TABLE} WHERE embedding MATCH ? AND k = ? AND deployment_id = ?`,
        )
        .all(query, k, deploymentId);
    },
    getChunks(ids: number[]): ChunkRow[] {
      if (ids.length === 0) return [];
      return db.query<ChunkRow, number[]>(`SELECT * FROM chunks WHERE id IN (${ids.map(() => "?").join(",")})`).all(...ids);
    },
    allChunks(): ChunkRow[] {
      return db.query<ChunkRow, []>("SELECT * FROM chunks ORDER BY id").all();
    },
    setVector(id: number, deploymentId: string, v: Float32Array): void {
      db.run(`INSERT INTO ${VEC_TABLE} (rowid, deployment_id, embedding) VALUES (?, ?, ?)`, [id, deploymentId, v]);
    },
    cachedVector(embedderId: string, textHash: string): Float32Array | null {
      const r = db.query<{ vector: Uint8Array }, [string, string]>("SELECT vector FROM embedding_cache WHERE embedder_id = ? AND text_hash = ?").get(embedderId, textHash);
      return r ? new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength)) : null;
    },
    cacheVector(embedderId: string, textHash: string, v: Float32Array): void {
      db.run("INSERT OR IGNORE INTO embedding_cache (embedder_id, text_hash, vector) VALUES (?, ?, ?)", [embedderId, textHash, v]);
    },
    counts(documentId: string): { chunks: number; fts: number; vec: number } {
      const ids = db.query<{ id: number }, [string]>("SELECT id FROM chunks WHERE document_id = ?").all(documentId).map((r) => r.id);
      let fts = 0;
      let v = 0;
      for (const id of ids) {
        if (db.query("SELECT 1 FROM chunks_fts WHERE rowid = ?").get(id)) fts++;
        if (vec && db.query(`SELECT 1 FROM ${VEC_TABLE} WHERE rowid = ?`).get(id)) v++;
      }
      return { chunks: ids.length, fts, vec: v };
    },
  };
}

export type ChunkIndexRepo = ReturnType<typeof createChunkIndexRepo>;
