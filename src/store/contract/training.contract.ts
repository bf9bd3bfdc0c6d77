import type { ChunkVector, NewChunk } from "./chunk-index.contract.ts";
import type { DocumentRecord, NewDocument } from "./documents.contract.ts";

/**
 * The training queue's writes, each ONE transaction. Documents are claimed by a worker (a process: one per node)
 * with a lease; a worker that dies leaves its documents to whoever claims after the lease ran out (their partial
 * index rows are removed in the claiming transaction). Every write below first checks the document is still
 * `processing` under this worker's claim ("still mine"): a document removed, re-queued or reclaimed meanwhile
 * is left alone and the call reports it. Where one process owns the store, "still mine" is "still processing".
 */
export interface TrainingStore {
  /**
   * Claims up to `limit` documents, oldest queued first, plus documents whose lease expired (a dead worker's),
   * for `worker` until now + leaseMs; attempts + 1. Returns them ordered by creation.
   */
  claim(worker: string, limit: number, leaseMs: number): Promise<DocumentRecord[]>;
  /** Extends the lease of documents this worker still holds; returns the ids it no longer holds. */
  renew(worker: string, ids: string[], leaseMs: number): Promise<string[]>;
  /**
   * Small documents: for each one still mine, replace older documents of the same name (when it says so), its
   * chunks + keyword rows + vectors, the embedding cache, `completed` — all documents of the batch in ONE
   * transaction, with the deployments' training status refreshed. Returns the ids completed.
   */
  completeBatch(worker: string, items: { doc: DocumentRecord; chunks: NewChunk[] }[], embedderId: string | null): Promise<string[]>;
  /**
   * Small documents trained before their rows exist (a bulk load that trains as it stores, CLI --wait): each row
   * inserted `completed` with its bytes but no prepared part (its chunks are in the index), older documents of the
   * same name replaced when it says so, chunks + keyword rows + vectors, the embedding cache — all in ONE
   * transaction, the deployments' training status refreshed. Nothing is queued, claimed or read back. No two items
   * share a deployment and name. Returns the rows, in order.
   */
  insertTrained(
    worker: string,
    items: { record: NewDocument; chunks: NewChunk[] }[],
    embedderId: string | null,
  ): Promise<DocumentRecord[]>;
  /** Removes a document's chunks (staged or published), keyword rows and vectors, when it is still mine; false when not. */
  clearIndex(worker: string, documentId: string): Promise<boolean>;
  /**
   * A large document's part `seq` of `parts`: chunks staged where no search sees them, embedding cache, progress.
   * Returns the new chunk ids, or null when the document is no longer mine.
   */
  stage(
    worker: string,
    doc: DocumentRecord,
    seq: number,
    parts: number,
    chunks: NewChunk[],
    embedderId: string | null,
  ): Promise<number[] | null>;
  /** Moves up to `limit` staged chunks into the deployment's index; returns how many (0: done or no longer mine). */
  publish(worker: string, doc: DocumentRecord, limit: number): Promise<number>;
  /** The large document's vectors, swap-out of an older one, `completed`, status refresh; false when no longer mine. */
  finishLarge(worker: string, doc: DocumentRecord, vectors: ChunkVector[], chunkCount: number): Promise<boolean>;
  /** `failed` with a code and message (when still mine), status refreshed. */
  fail(worker: string, doc: DocumentRecord, code: string, message: string): Promise<void>;
  /** Back to the queue in its old place with the reason it waits, attempt not counted (when still mine). */
  defer(worker: string, doc: DocumentRecord, code: string, message: string): Promise<void>;
  /** A document and all its rows removed in one transaction, the deployment's status refreshed. */
  removeDocument(documentId: string, deploymentId: string): Promise<void>;
  /** Recomputes a deployment's training status from its documents' statuses. */
  refreshStatus(deploymentId: string): Promise<void>;
  /**
   * At worker start: documents whose claim can't be alive any more go back to the queue with their partial
   * rows removed. SQLite (one process per data dir): every `processing` document. PostgreSQL: those whose lease
   * expired. Returns how many.
   */
  recoverInterrupted(worker: string): Promise<number>;
}
