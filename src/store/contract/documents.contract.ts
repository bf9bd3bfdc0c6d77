import { type FlagCell, flag, type IntCell, jsonOf, num, numOrNull } from "./row-values.ts";

export type DocumentStatus = "stored" | "queued" | "processing" | "completed" | "failed";
/** Who added a document: the owner (console, CLI) or the deployment key (the public push endpoint). */
export type DocumentOrigin = "owner" | "key";

export interface DocumentNote {
  page: number;
  code: string;
  confidence?: number;
}

/** An uploaded document: its bytes are kept, its chunks are in the chunk index once it is `completed`. */
export interface DocumentRecord {
  id: string;
  deploymentId: string;
  name: string;
  kind: string;
  contentHash: string;
  size: number;
  origin: DocumentOrigin;
  status: DocumentStatus;
  errorCode: string | null;
  errorMessage: string | null;
  attempts: number;
  chunkCount: number;
  pages: number | null;
  replaceOnTrain: boolean;
  /** pages read by OCR and their mean confidence (0..100), null when none */
  ocrPages: number;
  ocrConfidence: number | null;
  /** pages to report (low OCR confidence, no text, left unread) */
  notes: DocumentNote[];
  /** while processing: parts indexed of the total */
  progress: { done: number; total: number };
  /** the language its text was analyzed in (ISO 639-1; the most of its chunks'), null until trained */
  lang: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One language of a deployment's documents (docchat doctor, the console, the retriever). */
export interface DocumentLanguage {
  lang: string;
  documents: number;
  chunks: number;
}

/** A large document is written in bounded parts before its row: its bytes, then its prepared chunks. */
export type PartKind = "bytes" | "chunks";

export interface NewDocument {
  id: string;
  deploymentId: string;
  name: string;
  kind: string;
  contentHash: string;
  /** bytes; default: the inline bytes' length */
  size?: number;
  /** default: owner */
  origin?: DocumentOrigin;
  /** small documents: the bytes inline (a large one's were written with insertPart beforehand) */
  bytes?: Uint8Array;
  /** small documents: the prepared chunks (JSON lines), written as part 0 in the same transaction */
  chunks?: string;
  /** a ParsedDocument as JSON (older callers); training chunks it itself */
  parsed?: string;
  pages: number | null;
  queue: boolean;
  replaceOnTrain: boolean;
  ocrPages?: number;
  ocrConfidence?: number | null;
  notes?: DocumentNote[];
}

export interface DocumentRow {
  id: string;
  deployment_id: string;
  name: string;
  kind: string;
  content_hash: string;
  size: IntCell;
  origin: DocumentOrigin;
  status: DocumentStatus;
  error_code: string | null;
  error_message: string | null;
  attempts: IntCell;
  chunk_count: IntCell;
  pages: IntCell | null;
  replace_on_train: FlagCell;
  ocr_pages: IntCell;
  ocr_confidence: IntCell | null;
  notes: string | null;
  progress_done: IntCell;
  progress_total: IntCell;
  lang: string | null;
  created_at: IntCell;
  updated_at: IntCell;
}

export const toDocumentRecord = (r: DocumentRow): DocumentRecord => ({
  id: r.id,
  deploymentId: r.deployment_id,
  name: r.name,
  kind: r.kind,
  contentHash: r.content_hash,
  size: num(r.size),
  origin: r.origin,
  status: r.status,
  errorCode: r.error_code ?? null,
  errorMessage: r.error_message ?? null,
  attempts: num(r.attempts),
  chunkCount: num(r.chunk_count),
  pages: numOrNull(r.pages),
  replaceOnTrain: flag(r.replace_on_train),
  ocrPages: num(r.ocr_pages),
  ocrConfidence: numOrNull(r.ocr_confidence),
  notes: r.notes ? jsonOf<DocumentNote[]>(r.notes) : [],
  progress: { done: num(r.progress_done), total: num(r.progress_total) },
  lang: r.lang ?? null,
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
});

/** Creation order (ties by id): how claimed documents are handed to the worker. */
export const byCreation = (x: DocumentRecord, y: DocumentRecord): number =>
  x.createdAt - y.createdAt || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);

/** Whether `doc`, replacing older documents of its name, may remove `older`: a key push only removes key pushes. */
export const replaceable = (doc: { origin: DocumentOrigin }, older: { origin: DocumentOrigin }): boolean =>
  doc.origin === "owner" || older.origin === "key";

export const noStatusCounts = (): Record<DocumentStatus, number> => ({ stored: 0, queued: 0, processing: 0, completed: 0, failed: 0 });

/**
 * Documents, their bytes and their parts. Claiming them for training is the TrainingStore's (under a worker's
 * lease); the status writes here are for tools and tests that set a document's state directly.
 */
export interface DocumentsStore {
  /**
   * Stores the document row. A large document's bytes and prepared chunks are already in parts (insertPart); a
   * small one's come inline. Either way the row commits last, so a document is never seen half stored.
   */
  insert(input: NewDocument): Promise<DocumentRecord>;
  /** Several documents in one transaction (bulk loads: one commit instead of one per file). */
  insertMany(inputs: NewDocument[]): Promise<DocumentRecord[]>;
  /** One bounded part of a document's bytes or prepared chunks, in its own short transaction, not yet promised durable. */
  insertPart(documentId: string, part: PartKind, seq: number, data: Uint8Array | string): Promise<void>;
  partCount(documentId: string, part: PartKind): Promise<number>;
  partText(documentId: string, part: PartKind, seq: number): Promise<string | null>;
  /** Parts left by an upload interrupted before its document row was written; returns how many went. */
  deleteOrphanParts(olderThanMs: number): Promise<number>;
  setProgress(id: string, done: number, total: number): Promise<void>;
  get(id: string): Promise<DocumentRecord | null>;
  /** Scoped lookup: a document of another deployment is indistinguishable from a missing one. */
  getScoped(id: string, deploymentId: string): Promise<DocumentRecord | null>;
  /** Oldest first. */
  list(deploymentId: string): Promise<DocumentRecord[]>;
  /**
   * Documents and bytes the owner stored across an account's deployments (key pushes have their own share, see
   * pushUsage), leaving out one name in one deployment (an upload about to replace it).
   */
  accountUsage(accountId: number, except: { deploymentId: string; name: string } | null): Promise<{ documents: number; bytes: number }>;
  /** Documents and bytes pushed with the deployment's key, leaving out key-pushed documents of one name (a push about to replace them). */
  pushUsage(deploymentId: string, exceptName: string | null): Promise<{ documents: number; bytes: number }>;
  /** Oldest first. */
  findByName(deploymentId: string, name: string): Promise<DocumentRecord[]>;
  parsed(id: string): Promise<string | null>;
  /** The document's bytes, from its row or its parts; null when there is no such document. */
  bytes(id: string): Promise<Uint8Array | null>;
  /** Queues every stored (untrained) or failed document of a deployment; returns how many. */
  queueDeployment(deploymentId: string): Promise<number>;
  markCompleted(id: string, chunkCount: number): Promise<void>;
  /** Back in the queue in its old place with the reason it waits; the attempt is not counted. Only from `processing`. */
  deferQueued(id: string, code: string, message: string): Promise<void>;
  markFailed(id: string, code: string, message: string): Promise<void>;
  /** The row and its parts. A trained document's index rows go with TrainingStore.removeDocument instead. */
  deleteRow(id: string): Promise<void>;
  statusCounts(deploymentId: string): Promise<Record<DocumentStatus, number>>;
  /** The languages of the deployment's trained documents, the most chunks first. */
  languages(deploymentId: string): Promise<DocumentLanguage[]>;
  /** Deployments with documents queued or processing. */
  pendingDeployments(): Promise<string[]>;
}
