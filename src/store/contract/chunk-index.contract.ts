import { type IntCell, num, numOrNull } from "./row-values.ts";

/** A chunk to index: prepared by ingest/, with its source name, the hash of its text and its vector when embedded. */
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
  /** the language the chunk was analyzed in (ISO 639-1; null: not recorded) */
  lang: string | null;
  /**
   * Its analyzed terms and its heading's (rag/analyzer: stems, stop words dropped, words segmented), space-separated:
   * what both engines index, exactly as given, so they rank alike. The text's dropped words are there as
   * LENGTH_PAD tokens: no search looks them up, but they count in the passage's length, as BM25 measures it.
   */
  terms: string;
  headingTerms: string;
}

/**
 * A word the analyzer drops (a stop word) in a chunk's `terms`: it is no term of the index, but the passage's
 * length counts it — else BM25 would take a passage of many function words for a short one, and favour it. No
 * word or symbol is analyzed to this token (a symbol's term is "§" and hex digits).
 */
export const LENGTH_PAD = "§";

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

/**
 * A passage verbatim and where it stands in its document: what every view of an indexed chunk shows (the chunk
 * itself, an agent's neighbours, the citation viewer's passages).
 */
export interface PassagePlace {
  /** position in its document */
  ord: number;
  text: string;
  headingPath: string;
  pageStart: number | null;
  pageEnd: number | null;
  rowStart: number | null;
  rowEnd: number | null;
}

/** A chunk as indexed: the passage verbatim and where it came from. */
export interface IndexedChunk extends PassagePlace {
  id: number;
  deploymentId: string;
  documentId: string;
  source: string;
  tokenCount: number;
  textHash: string;
}

export interface ChunkRow {
  id: IntCell;
  deployment_id: string;
  document_id: string;
  ord: IntCell;
  source: string;
  text: string;
  heading_path: string;
  page_start: IntCell | null;
  page_end: IntCell | null;
  row_start: IntCell | null;
  row_end: IntCell | null;
  token_count: IntCell;
  text_hash: string;
}

/** The columns every view of a passage reads. */
export type PassagePlaceRow = Pick<ChunkRow, "ord" | "text" | "heading_path" | "page_start" | "page_end" | "row_start" | "row_end">;

/** One mapper for where a passage stands, shared by the chunk, neighbour and citation-viewer records. */
export const toPassagePlace = (r: PassagePlaceRow): PassagePlace => ({
  ord: num(r.ord),
  text: r.text,
  headingPath: r.heading_path,
  pageStart: numOrNull(r.page_start),
  pageEnd: numOrNull(r.page_end),
  rowStart: numOrNull(r.row_start),
  rowEnd: numOrNull(r.row_end),
});

export const toIndexedChunk = (r: ChunkRow): IndexedChunk => ({
  ...toPassagePlace(r),
  id: num(r.id),
  deploymentId: r.deployment_id,
  documentId: r.document_id,
  source: r.source,
  tokenCount: num(r.token_count),
  textHash: r.text_hash,
});

/** One vector of a chunk, written when a large document is published. */
export interface ChunkVector {
  id: number;
  vector: Float32Array;
}

/**
 * A large document's chunks are written in many short transactions under this placeholder deployment, which has
 * no keyword rows and no vectors, so no search sees them until they are published into their deployment.
 */
export const stagingDeployment = (documentId: string): string => `~staging:${documentId}`;

/** Where a document's chunks are: rows, keyword-indexed rows, vectors. */
export interface IndexCounts {
  chunks: number;
  fts: number;
  vec: number;
}

/**
 * The hybrid index: chunk rows, their keyword rows (each deployment ranked by its own statistics) and their vectors
 * always change together in one transaction, so retrieval never sees a half-indexed document. Writes of the
 * training queue (staging, publishing) are the TrainingStore's.
 */
export interface ChunkIndexStore {
  /** Whether a vector table exists (in-process state: no query). */
  hasVectors(): boolean;
  /** Re-reads shared index state another node may have changed (the vector table). A no-op where one process owns the store. */
  refresh(): Promise<void>;
  /**
   * Runs `fn` while no other process of the store runs it (the vector table's one-time set-up by nodes starting
   * together). Where one process owns the store it simply runs `fn`.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  meta(key: string): Promise<string | null>;
  setMeta(key: string, value: string): Promise<void>;
  /** (Re)creates the vector table for `dimension` (null: none); drops any previous one (reindex). */
  createVectorTable(dimension: number | null): Promise<void>;
  /** A document's chunks, keyword rows and vectors in one transaction; returns the chunk ids in order. */
  insert(deploymentId: string, documentId: string, chunks: NewChunk[]): Promise<number[]>;
  /** Removes a document's chunks from every place (staged or published). */
  deleteDocument(documentId: string): Promise<void>;
  /**
   * The deployment's chunks containing any of `terms` (analyzed by rag/terms: each driver builds its own query from
   * them), best first by BM25 over the deployment's own statistics as FTS5's bm25(text 1.0, heading 0.5) scores it
   * (lower = better). No terms: no hits.
   */
  keywordSearch(deploymentId: string, terms: string[], limit: number): Promise<{ id: number; score: number }[]>;
  /** The deployment's k nearest vectors by cosine distance (1 − cos), nearest first; none without a vector table. */
  vectorSearch(deploymentId: string, query: Float32Array, k: number): Promise<{ id: number; distance: number }[]>;
  getChunks(ids: number[]): Promise<IndexedChunk[]>;
  /** Every chunk, by id (reindexing). */
  allChunks(): Promise<IndexedChunk[]>;
  setVector(id: number, deploymentId: string, v: Float32Array): Promise<void>;
  cachedVector(embedderId: string, textHash: string): Promise<Float32Array | null>;
  /** Cached vectors of many texts at once, in the order asked (null: not cached). */
  cachedVectors(embedderId: string, textHashes: string[]): Promise<(Float32Array | null)[]>;
  cacheVector(embedderId: string, textHash: string, v: Float32Array): Promise<void>;
  counts(documentId: string): Promise<IndexCounts>;
  /**
   * Index maintenance after a bulk load, in short steps with `pause` between them so a server keeps answering
   * (SQLite: FTS5 segment merges). Returns the steps done; 0 where the index needs none.
   */
  mergeFts(opts?: { pagesPerStep?: number; maxSteps?: number; pause?: () => Promise<void> }): Promise<number>;
  /**
   * Rebuilding keyword indexes with another analysis (documents/keyword-reindex.ts drives it: an upgrade, or an owner
   * pinning languages), in batches while the old index answers; each batch is saved with its progress, so a killed
   * rebuild resumes. Deployments whose index `analyzer` did not build, that were marked stale, or that have none:
   */
  keywordReindexPending(analyzer: string): Promise<{ deploymentId: string; chunks: number }[]>;
  /** The next chunks of a deployment to re-analyze: those after the last one written. */
  keywordReindexNext(deploymentId: string, analyzer: string, limit: number): Promise<ReindexChunk[]>;
  /** One re-analyzed batch into the rebuild (with the chunks' language), and the progress. */
  keywordReindexWrite(deploymentId: string, analyzer: string, rows: ReanalyzedChunk[]): Promise<void>;
  /**
   * The rebuilt index replaces the live one and the deployment's documents take the language most of their chunks
   * have; false when chunks arrived after the last batch (read on).
   */
  keywordReindexFinish(deploymentId: string, analyzer: string): Promise<boolean>;
  /** Marks a deployment's keyword index for rebuilding (its owner pinned other languages). */
  keywordReindexRequest(deploymentId: string): Promise<void>;
}

/**
 * Term statistics for the gate's IDF weights, from the deployment's own keyword statistics (the numbers its BM25
 * ranking uses), so the gate and the ranking agree and another tenant's uploads change neither.
 */
export interface TermStatsStore {
  /** Chunks of the deployment containing each term; absent terms are 0. */
  documentFrequencies(deploymentId: string, terms: string[]): Promise<Map<string, number>>;
  /** The deployment's indexed chunks (may be cached briefly: it only scales the weights). */
  totalChunks(deploymentId: string): Promise<number>;
  /** The languages (ISO 639-1) of the deployment's trained documents, the most chunks first (may be cached briefly). */
  languages(deploymentId: string): Promise<string[]>;
}
