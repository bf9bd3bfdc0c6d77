import type { Db } from "../db.ts";
import {
  allKeywordTables,
  deleteKeywordRows,
  ensureKeywordTable,
  ensureRebuildTable,
  findKeywordTable,
  type KeywordTable,
  LEGACY_ANALYZER,
  markStale,
  pendingRebuilds,
  rebuilding,
  swapInRebuilt,
} from "../keyword-tables.ts";

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
  /** the language the chunk was analyzed in (ISO 639-1; null: not recorded) and its analyzed terms, space-separated (rag/analyzer) */
  lang: string | null;
  terms: string;
  headingTerms: string;
}

/** A chunk to re-analyze for the keyword index (keyword reindex). */
export interface ReindexChunk {
  id: number;
  documentId: string;
  text: string;
  headingPath: string;
  /** the language it was analyzed in before; null when trained before languages were recorded */
  lang: string | null;
}

/** A re-analyzed chunk for the rebuilt keyword index. */
export interface ReanalyzedChunk {
  id: number;
  lang: string;
  terms: string;
  headingTerms: string;
}

const VEC_TABLE = "chunks_vec";

/**
 * A large document's chunks are written in many short transactions under this placeholder deployment, which
 * has no keyword table and no vectors, so no search sees them; publishStaged moves them into their deployment
 * and its keyword table in short batches.
 */
export const stagingDeployment = (documentId: string) => `~staging:${documentId}`;

/**
 * The hybrid index: chunk rows, their FTS5 rows (in the deployment's own keyword table) and their vec0 rows
 * always change together inside the caller's transaction, so retrieval never sees a half-indexed document.
 */
export function createChunkIndexRepo(db: Db) {
  const hasVecTable = () => db.query("SELECT 1 FROM sqlite_master WHERE name = ?").get(VEC_TABLE) !== null;
  let vec = hasVecTable();
  const insertChunk = db.query<{ id: number }, (string | number | null)[]>(
    `INSERT INTO chunks (deployment_id, document_id, ord, source, text, heading_path, page_start, page_end, row_start, row_end, token_count, text_hash, lang, staged_terms, staged_heading_terms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  /**
   * Writes one chunk's keyword row: its analyzed terms into a table built for them, its text into a table from before
   * the analyzer (external content over `chunks`), so a deployment stays searchable until the keyword reindex rebuilds it.
   */
  const keywordInsert = (kw: KeywordTable) => {
    if (kw.analyzer === LEGACY_ANALYZER) {
      const q = db.query(`INSERT INTO ${kw.fts} (rowid, text, heading_path) VALUES (?, ?, ?)`);
      return (id: number, _terms: string, _heading: string, text: string, headingPath: string) => q.run(id, text, headingPath);
    }
    const q = db.query(`INSERT INTO ${kw.fts} (rowid, terms, heading) VALUES (?, ?, ?)`);
    return (id: number, terms: string, heading: string) => q.run(id, terms, heading);
  };
  const insertRow = (deploymentId: string, documentId: string, c: NewChunk, staged = false): number =>
    (
      insertChunk.get(
        deploymentId,
        documentId,
        c.ord,
        c.source,
        c.text,
        c.headingPath,
        c.pageStart ?? null,
        c.pageEnd ?? null,
        c.rowStart ?? null,
        c.rowEnd ?? null,
        c.tokenCount,
        c.textHash,
        c.lang,
        staged ? c.terms : null,
        staged ? c.headingTerms : null,
      ) as { id: number }
    ).id;
  function writeRebuildBatch(deploymentId: string, analyzer: string, batch: ReanalyzedChunk[]): void {
    const t = ensureRebuildTable(db, deploymentId, analyzer);
    const rows = batch.filter((r) => r.id > t.lastId);
    if (rows.length === 0) return;
    const put = db.query(`INSERT INTO ${t.fts} (rowid, terms, heading) VALUES (?, ?, ?)`);
    const setLang = db.query("UPDATE chunks SET lang = ? WHERE id = ?");
    for (const r of rows) {
      put.run(r.id, r.terms, r.headingTerms);
      setLang.run(r.lang, r.id);
    }
    db.run("UPDATE keyword_reindex SET last_id = ? WHERE deployment_id = ?", [Math.max(...rows.map((r) => r.id)), deploymentId]);
  }
  function finishRebuild(deploymentId: string, analyzer: string): boolean {
    const t = ensureRebuildTable(db, deploymentId, analyzer);
    if (db.query("SELECT 1 FROM chunks WHERE deployment_id = ? AND id > ? LIMIT 1").get(deploymentId, t.lastId)) return false;
    swapInRebuilt(db, deploymentId);
    db.run(
      "UPDATE documents SET lang = (SELECT c.lang FROM chunks c WHERE c.document_id = documents.id AND c.lang IS NOT NULL GROUP BY c.lang ORDER BY count(*) DESC, c.lang LIMIT 1) WHERE deployment_id = ? AND status = 'completed'",
      [deploymentId],
    );
    return true;
  }
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
        db.run(
          `CREATE VIRTUAL TABLE ${VEC_TABLE} USING vec0(deployment_id TEXT PARTITION KEY, embedding float[${dimension}] distance_metric=cosine)`,
        );
      }
      vec = dimension !== null;
    },
    insert(deploymentId: string, documentId: string, chunks: NewChunk[]): number[] {
      const ids: number[] = [];
      if (chunks.length === 0) return ids;
      const kw = ensureKeywordTable(db, deploymentId);
      const insertFts = keywordInsert(kw);
      for (const c of chunks) {
        const id = insertRow(deploymentId, documentId, c);
        insertFts(id, c.terms, c.headingTerms, c.text, c.headingPath);
        if (vec && c.vector)
          db.run(`INSERT INTO ${VEC_TABLE} (rowid, deployment_id, embedding) VALUES (?, ?, ?)`, [id, deploymentId, c.vector]);
        ids.push(id);
      }
      return ids;
    },
    /** Writes part of a large document's chunks where no search sees them yet (no keyword rows); returns their ids. */
    insertStaged(documentId: string, chunks: NewChunk[]): number[] {
      const staging = stagingDeployment(documentId);
      return chunks.map((c) => insertRow(staging, documentId, c, true));
    },
    /**
     * Moves up to `limit` staged chunks of a document into its deployment and its keyword table; returns how many
     * moved. Done in short batches: one transaction for 40,000 chunks held the thread for 0.5 s.
     */
    publishStaged(documentId: string, deploymentId: string, limit: number): number {
      const rows = db
        .query<
          { id: number; text: string; heading_path: string; terms: string | null; heading_terms: string | null },
          [string, string, number]
        >(
          "SELECT id, text, heading_path, staged_terms AS terms, staged_heading_terms AS heading_terms FROM chunks WHERE document_id = ? AND deployment_id = ? LIMIT ?",
        )
        .all(documentId, stagingDeployment(documentId), limit);
      if (rows.length === 0) return 0;
      const kw = ensureKeywordTable(db, deploymentId);
      const move = db.query("UPDATE chunks SET deployment_id = ?, staged_terms = NULL, staged_heading_terms = NULL WHERE id = ?");
      const insertFts = keywordInsert(kw);
      for (const r of rows) {
        move.run(deploymentId, r.id);
        insertFts(r.id, r.terms ?? "", r.heading_terms ?? "", r.text, r.heading_path);
      }
      return rows.length;
    },
    /** Vectors of chunks already inserted (a staged document's, at publish). */
    insertVectors(deploymentId: string, vectors: { id: number; vector: Float32Array }[]): void {
      if (vec)
        for (const v of vectors)
          db.run(`INSERT INTO ${VEC_TABLE} (rowid, deployment_id, embedding) VALUES (?, ?, ?)`, [v.id, deploymentId, v.vector]);
    },
    /**
     * FTS5 maintenance after a bulk load: merges the keyword tables' segments in bounded steps (each its own short
     * write) so a server keeps answering meanwhile. Returns the steps done.
     */
    async mergeFts(opts: { pagesPerStep?: number; maxSteps?: number; pause?: () => Promise<void> } = {}): Promise<number> {
      const changes = () => db.query<{ n: number }, []>("SELECT total_changes() AS n").get()?.n ?? 0;
      let steps = 0;
      for (const t of allKeywordTables(db)) {
        for (; steps < (opts.maxSteps ?? 1000); steps++) {
          const before = changes();
          db.run(`INSERT INTO ${t.fts}(${t.fts}, rank) VALUES ('merge', ?)`, [opts.pagesPerStep ?? 64]);
          // FTS5 documents this: fewer than two changes means the merge found no work
          if (changes() - before < 2) break;
          await opts.pause?.();
        }
      }
      return steps;
    },
    /**
     * Removes a document's chunks from all three places (an external-content FTS row is deleted with its old
     * values, from the keyword table of the deployment the row is in: a staged row is in none).
     */
    deleteDocument(documentId: string): void {
      const rows = db
        .query<{ id: number; deployment_id: string; text: string; heading_path: string }, [string]>(
          "SELECT id, deployment_id, text, heading_path FROM chunks WHERE document_id = ?",
        )
        .all(documentId);
      for (const d of new Set(rows.map((r) => r.deployment_id))) {
        const mine = rows.filter((r) => r.deployment_id === d);
        const kw = findKeywordTable(db, d);
        if (kw) deleteKeywordRows(db, kw, mine);
        // a rebuild under way has copied some of them already
        const next = rebuilding(db, d);
        if (next) deleteKeywordRows(db, next, mine);
      }
      if (vec) for (const r of rows) db.run(`DELETE FROM ${VEC_TABLE} WHERE rowid = ?`, [r.id]);
      db.run("DELETE FROM chunks WHERE document_id = ?", [documentId]);
    },
    /**
     * BM25 over the deployment's own keyword table: its statistics only (lower = better, as FTS5 returns it). `terms`
     * are analyzed terms (rag/analyzer); each is quoted, so no FTS5 operator a visitor typed ever reaches MATCH.
     */
    keywordSearch(deploymentId: string, terms: string[], limit: number): { id: number; score: number }[] {
      const kw = findKeywordTable(db, deploymentId);
      const match = [...new Set(terms)].map((t) => `"${t.replaceAll('"', '""')}"`).join(" OR ");
      if (!kw || match === "") return [];
      return db
        .query<{ id: number; score: number }, [string, number]>(
          `SELECT rowid AS id, bm25(${kw.fts}, 1.0, 0.5) AS score FROM ${kw.fts} WHERE ${kw.fts} MATCH ? ORDER BY score LIMIT ?`,
        )
        .all(match, limit);
    },
    /** Deployments whose keyword index must be rebuilt for `analyzer` (built by another, stale or missing). */
    keywordReindexPending(analyzer: string): { deploymentId: string; chunks: number }[] {
      return pendingRebuilds(db, analyzer);
    },
    /** The next chunks of a deployment to re-analyze: those after the last one written (a killed rebuild resumes). */
    keywordReindexNext(deploymentId: string, analyzer: string, limit: number): ReindexChunk[] {
      const next = rebuilding(db, deploymentId);
      const after = next && next.analyzer === analyzer ? next.lastId : 0;
      return db
        .query<ReindexChunk, [string, number, number]>(
          "SELECT id, document_id AS documentId, text, heading_path AS headingPath, lang FROM chunks WHERE deployment_id = ? AND id > ? ORDER BY id LIMIT ?",
        )
        .all(deploymentId, after, limit);
    },
    /** One re-analyzed batch into the rebuild table (created on the first), with the chunks' language and the progress. */
    keywordReindexWrite(deploymentId: string, analyzer: string, batch: ReanalyzedChunk[]): void {
      if (batch.length === 0) return;
      // one short transaction per batch: its rows and its progress commit together
      db.transaction(() => writeRebuildBatch(deploymentId, analyzer, batch)).immediate();
    },
    /**
     * The rebuilt table replaces the live one, and the deployment's documents take the language most of their chunks
     * have; false when chunks arrived after the last batch (read on). An empty deployment just drops its table.
     */
    keywordReindexFinish(deploymentId: string, analyzer: string): boolean {
      return db.transaction(() => finishRebuild(deploymentId, analyzer)).immediate();
    },
    /** Asks for a rebuild of the deployment's keyword index (its owner pinned other languages). */
    keywordReindexRequest(deploymentId: string): void {
      markStale(db, deploymentId);
    },
    vectorSearch(deploymentId: string, query: Float32Array, k: number)
: { id: number; distance: number }[] {
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
      const r = db
        .query<{ vector: Uint8Array }, [string, string]>("SELECT vector FROM embedding_cache WHERE embedder_id = ? AND text_hash = ?")
        .get(embedderId, textHash);
      return r ? new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength)) : null;
    },
    /** Cached vectors of many texts at once, in the order asked (null: not cached). */
    cachedVectors(embedderId: string, textHashes: string[]): (Float32Array | null)[] {
      return textHashes.map((h) => this.cachedVector(embedderId, h));
    },
    cacheVector(embedderId: string, textHash: string, v: Float32Array): void {
      db.run("INSERT OR IGNORE INTO embedding_cache (embedder_id, text_hash, vector) VALUES (?, ?, ?)", [embedderId, textHash, v]);
    },
    counts(documentId: string): { chunks: number; fts: number; vec: number } {
      const rows = db
        .query<{ id: number; deployment_id: string }, [string]>("SELECT id, deployment_id FROM chunks WHERE document_id = ?")
        .all(documentId);
      const ids = rows.map((r) => r.id);
      const kw = rows[0] ? findKeywordTable(db, rows[0].deployment_id) : null;
      let fts = 0;
      let v = 0;
      for (const id of ids) {
        // external content keeps no text copy; FTS5's docsize row says the rowid is indexed
        if (kw && db.query(`SELECT 1 FROM ${kw.fts}_docsize WHERE id = ?`).get(id)) fts++;
        if (vec && db.query(`SELECT 1 FROM ${VEC_TABLE} WHERE rowid = ?`).get(id)) v++;
      }
      return { chunks: ids.length, fts, vec: v };
    },
  };
}

export type ChunkIndexRepo = ReturnType<typeof createChunkIndexRepo>;
