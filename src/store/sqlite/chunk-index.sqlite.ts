import type { ChunkIndexStore, ChunkRow, ChunkVector, NewChunk } from "../contract/chunk-index.contract.ts";
import { stagingDeployment, toIndexedChunk } from "../contract/chunk-index.contract.ts";
import type { Db } from "./db.ts";
import { fts5Match } from "./fts5-match.ts";
import { createSqliteKeywordReindex } from "./keyword-reindex.sqlite.ts";
import {
  allKeywordTables,
  deleteKeywordRows,
  ensureKeywordTable,
  findKeywordTable,
  type KeywordTable,
  keywordsChanged,
  LEGACY_ANALYZER,
  rebuilding,
} from "./keyword-tables.ts";
import { createVectorStore } from "./vector-search.sqlite.ts";
import { vectorFromBlob } from "../shared/vector-blob.ts";

const INSERT_CHUNK = `INSERT INTO chunks (deployment_id, document_id, ord, source, text, heading_path, page_start, page_end, row_start, row_end, token_count, text_hash, lang, staged_terms, staged_heading_terms)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`;

/**
 * The hybrid index's writes: chunk rows, their FTS5 rows (in the deployment's own keyword table) and their vec0
 * rows. Synchronous and without transactions of their own, so the training store runs them inside its
 * transactions (training.sqlite.ts) and retrieval never sees a half-indexed document.
 */
export function createChunkIndexWriter(db: Db) {
  const vectors = createVectorStore(db);
  // a staged chunk keeps its analyzed terms until it is published into the keyword table
  const insertRow = (deploymentId: string, documentId: string, c: NewChunk, staged = false): number =>
    (
      db
        .query<{ id: number }, (string | number | null)[]>(INSERT_CHUNK)
        .get(
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
  /**
   * Writes one chunk's keyword row: its analyzed terms into a table built for them, its text into a table from before
   * the analyzer (external content over `chunks`), so a deployment stays searchable until the keyword reindex rebuilds it.
   */
  const ftsInsert = (kw: KeywordTable) => {
    keywordsChanged(db);
    if (kw.analyzer === LEGACY_ANALYZER) {
      const q = db.query(`INSERT INTO ${kw.fts} (rowid, text, heading_path) VALUES (?, ?, ?)`);
      return (id: number, _terms: string, _heading: string, text: string, headingPath: string) => q.run(id, text, headingPath);
    }
    const q = db.query(`INSERT INTO ${kw.fts} (rowid, terms, heading) VALUES (?, ?, ?)`);
    return (id: number, terms: string, heading: string) => q.run(id, terms, heading);
  };
  return {
    hasVectors: vectors.hasVectors,
    /** The vector tables (vector-search.sqlite.ts): exact and quantized KNN. */
    vectors,
    /** (Re)creates the vector tables for `dimension`; drops any previous ones (reindex). */
    createVectorTable(dimension: number | null): void {
      vectors.create(dimension);
    },
    insert(deploymentId: string, documentId: string, chunks: NewChunk[]): number[] {
      const ids: number[] = [];
      if (chunks.length === 0) return ids;
      const insertFts = ftsInsert(ensureKeywordTable(db, deploymentId));
      for (const c of chunks) {
        const id = insertRow(deploymentId, documentId, c);
        insertFts(id, c.terms, c.headingTerms, c.text, c.headingPath);
        if (c.vector) vectors.insert(id, deploymentId, c.vector);
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
      const move = db.query("UPDATE chunks SET deployment_id = ?, staged_terms = NULL, staged_heading_terms = NULL WHERE id = ?");
      const insertFts = ftsInsert(ensureKeywordTable(db, deploymentId));
      for (const r of rows) {
        move.run(deploymentId, r.id);
        insertFts(r.id, r.terms ?? "", r.heading_terms ?? "", r.text, r.heading_path);
      }
      return rows.length;
    },
    /** Vectors of chunks already inserted (a staged document's, at publish); nothing without a vector table. */
    insertVectors(deploymentId: string, list: ChunkVector[]): void {
      for (const v of list) vectors.insert(v.id, deploymentId, v.vector);
    },
    setVector(id: number, deploymentId: string, v: Float32Array): void {
      vectors.insert(id, deploymentId, v);
    },
    /**
     * Removes a document's chunks from all three places: the keyword table of the deployment the rows are in (a
     * staged row is in none; a table from before the analyzer deletes a row with its old values) and a rebuild's.
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
      for (const r of rows) vectors.remove(r.id);
      db.run("DELETE FROM chunks WHERE document_id = ?", [documentId]);
    },
    cacheVector(embedderId: string, textHash: string, v: Float32Array): void {
      db.run("INSERT OR IGNORE INTO embedding_cache (embedder_id, text_hash, vector) VALUES (?, ?, ?)", [embedderId, textHash, v]);
    },
  };
}

export type ChunkIndexWriter = ReturnType<typeof createChunkIndexWriter>;


/** The chunk index on SQLite: FTS5 per deployment (keyword-tables.ts) and sqlite-vec, over the writer above. */
export function createSqliteChunkIndex(db: Db, writer: ChunkIndexWriter = createChunkIndexWriter(db)): ChunkIndexStore {
  const immediate = <T>(fn: () => T): T => db.transaction(fn).immediate();
  const cached = (embedderId: string, textHash: string) => {
    const r = db
      .query<{ vector: Uint8Array }, [string, string]>("SELECT vector FROM embedding_cache WHERE embedder_id = ? AND text_hash = ?")
      .get(embedderId, textHash);
    return r ? vectorFromBlob(r.vector) : null;
  };
  return {
    ...createSqliteKeywordReindex(db),
    hasVectors: writer.hasVectors,
    // one process owns the data dir: nothing another node could have changed, nobody to exclude
    refresh: async () => {},
    exclusive: (fn) => fn(),
    async meta(key) {
      return db.query<{ value: string }, [string]>("SELECT value FROM index_meta WHERE key = ?").get(key)?.value ?? null;
    },
    async setMeta(key, value) {
      db.run("INSERT INTO index_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [key, value]);
    },
    createVectorTable: async (dimension) => writer.createVectorTable(dimension),
    insert: async (deploymentId, documentId, chunks) => immediate(() => writer.insert(deploymentId, documentId, chunks)),
    deleteDocument: async (documentId) => immediate(() => writer.deleteDocument(documentId)),
    /** BM25 over the deployment's own keyword table: its statistics only (lower = better, as FTS5 returns it). */
    async keywordSearch(deploymentId, terms, limit) {
      const kw = findKeywordTable(db, deploymentId);
      // each term once, as the PostgreSQL index weighs them
      const match = fts5Match([...new Set(terms)]);
      if (!kw || !match) return [];
      return db
        .query<{ id: number; score: number }, [string, number]>(
          `SELECT rowid AS id, bm25(${kw.fts}, 1.0, 0.5) AS score FROM ${kw.fts} WHERE ${kw.fts} MATCH ? ORDER BY score LIMIT ?`,
        )
        .all(match, limit);
    },
    vectorSearch: async (deploymentId, query, k) => writer.vectors.search(deploymentId, query, k),
    async getChunks(ids) {
      if (ids.length === 0) return [];
      return db
        .query<ChunkRow, number[]>(`SELECT * FROM chunks WHERE id IN (${ids.map(() => "?").join(",")})`)
        .all(...ids)
        .map(toIndexedChunk);
    },
    async allChunks() {
      return db.query<ChunkRow, []>("SELECT * FROM chunks ORDER BY id").all().map(toIndexedChunk);
    },
    setVector: async (id, deploymentId, v) => writer.setVector(id, deploymentId, v),
    cachedVector: async (embedderId, textHash) => cached(embedderId, textHash),
    cachedVectors: async (embedderId, textHashes) => textHashes.map((h) => cached(embedderId, h)),
    cacheVector: async (embedderId, textHash, v) => writer.cacheVector(embedderId, textHash, v),
    async counts(documentId) {
      const rows = db
        .query<{ id: number; deployment_id: string }, [string]>("SELECT id, deployment_id FROM chunks WHERE document_id = ?")
        .all(documentId);
      const kw = rows[0] ? findKeywordTable(db, rows[0].deployment_id) : null;
      let fts = 0;
      let v = 0;
      for (const { id } of rows) {
        // the table keeps no text copy; FTS5's docsize row says the rowid is indexed
        if (kw && db.query(`SELECT 1 FROM ${kw.fts}_docsize WHERE id = ?`).get(id)) fts++;
        if (writer.vectors.has(id)) v++;
      }
      return { chunks: rows.length, fts, vec: v };
    },
    /**
     * FTS5 maintenance after a bulk load: merges the keyword tables' segments in bounded steps (each its own short
     * write) so a server keeps answering meanwhile. Returns the steps done.
     */
    async mergeFts(opts = {}) {
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
  };
}
