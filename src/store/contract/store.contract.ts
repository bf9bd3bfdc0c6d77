import type { AccountsRepo } from "../sqlite/repos/accounts.sqlite.ts";
import type { ChatLogFeedbackRepo } from "../sqlite/repos/chat-log-feedback.sqlite.ts";
import type { ChatLogsRepo } from "../sqlite/repos/chat-logs.sqlite.ts";
import type { ChunkIndexRepo, NewChunk } from "../sqlite/chunk-index.sqlite.ts";
import type { ConversationsRepo } from "../sqlite/repos/conversations.sqlite.ts";
import type { CorrectionsRepo } from "../sqlite/repos/corrections.sqlite.ts";
import type { DeploymentsRepo } from "../sqlite/repos/deployments.sqlite.ts";
import type { DocumentRecord, DocumentsRepo } from "../sqlite/repos/documents.sqlite.ts";
import type { KeysRepo } from "../sqlite/repos/keys.sqlite.ts";
import type { LeadsRepo } from "../sqlite/repos/leads.sqlite.ts";
import type { LoginAttemptsRepo } from "../sqlite/repos/login-attempts.sqlite.ts";
import type { OutboxRepo } from "../sqlite/repos/outbox.sqlite.ts";
import type { OwnerChatLogsRepo } from "../sqlite/repos/owner-chat-logs.sqlite.ts";
import type { OwnerSessionsRepo } from "../sqlite/repos/owner-sessions.sqlite.ts";
import type { QueueDepthsRepo } from "../sqlite/repos/queue-depths.sqlite.ts";
import type { ReportsRepo } from "../sqlite/repos/reports.sqlite.ts";
import type { TermStatsRepo } from "../sqlite/term-stats.sqlite.ts";

/**
 * The store contract (issue 12): every repository of the SQLite implementation, with each method returning a
 * promise, so a PostgreSQL implementation can stand in for it. Services depend on these types only; `store/` is
 * the only place that knows which engine runs and what SQL it speaks. Each method is atomic on its own: work
 * that must commit together (a document's chunks and its status) is one method, never a transaction held
 * open by a service.
 */
export type Async<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => infer T ? (...args: A) => Promise<Awaited<T>> : R[K];
};

/** Methods of a repo that stay synchronous on every engine (in-process state, no query). */
type SyncKeys = "hasVectors";
export type AsyncRepo<R> = Async<Omit<R, SyncKeys & keyof R>> & Pick<R, SyncKeys & keyof R>;

export type AccountsStore = AsyncRepo<AccountsRepo>;
export type DeploymentsStore = AsyncRepo<DeploymentsRepo>;
export type KeysStore = AsyncRepo<KeysRepo>;
/**
 * The SQLite repo's own, lease-less claims, which its training store composes; on every engine documents are claimed
 * through the TrainingStore, under a worker's lease.
 */
type QueueClaims = "claimNext" | "claimBatch" | "interruptedIds" | "requeueInterrupted";
export type DocumentsStore = AsyncRepo<Omit<DocumentsRepo, QueueClaims>>;
/** Writes only the training store makes (staging large documents is engine-internal). */
type TrainingOnly = "insertStaged" | "publishStaged" | "insertVectors" | "mergeFts";
export type ChunkIndexStore = AsyncRepo<Omit<ChunkIndexRepo, TrainingOnly>> & {
  /** Re-reads shared index state another node may have changed (the vector table). No-op on SQLite. */
  refresh(): Promise<void>;
  /** Index maintenance after a bulk load, in short steps (SQLite: FTS5 segment merges); absent when not needed. */
  mergeFts?: ChunkIndexRepo["mergeFts"];
  /**
   * Runs `fn` while no other process of the store runs it (PostgreSQL: a session advisory lock), for the vector
   * table's one-time set-up by nodes starting together. Absent where one process owns the store (SQLite).
   */
  exclusive?<T>(fn: () => Promise<T>): Promise<T>;
};
export type TermStatsStore = AsyncRepo<TermStatsRepo>;
export type OutboxStore = AsyncRepo<OutboxRepo>;
export type LeadsStore = AsyncRepo<LeadsRepo>;
export type CorrectionsStore = AsyncRepo<CorrectionsRepo>;
export type ChatLogFeedbackStore = AsyncRepo<ChatLogFeedbackRepo>;
export type ChatLogsStore = AsyncRepo<ChatLogsRepo>;
export type ConversationsStore = AsyncRepo<ConversationsRepo>;
export type OwnerSessionsStore = AsyncRepo<OwnerSessionsRepo>;
export type LoginAttemptsStore = AsyncRepo<LoginAttemptsRepo>;
export type OwnerChatLogsStore = AsyncRepo<OwnerChatLogsRepo>;
export type ReportsStore = AsyncRepo<ReportsRepo>;
export type QueueDepthsStore = AsyncRepo<QueueDepthsRepo>;

/** One vector of a chunk, written when a large document is published. */
export interface ChunkVector {
  id: number;
  vector: Float32Array;
}

/**
 * The training queue's writes, each ONE transaction. Documents are claimed by a worker (a process: one per node)
 * with a lease; a worker that dies leaves its documents to whoever claims after the lease ran out (their partial
 * index rows are removed in the claiming transaction). Every write below first checks the document is still
 * `processing` under this worker's claim ("still mine"): a document removed, re-queued or reclaimed meanwhile
 * is left alone and the call reports it.
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

/** Exact "N per rolling minute" per identity, shared by every node of the store. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterSeconds: number;
}
export interface RateLimitStore {
  /** Counts one request of `identity` unless it is over `limit` in the last minute. */
  hit(identity: string, limit: number): Promise<RateDecision>;
  /** What `hit` would report, without counting (CORS preflights). */
  peek(identity: string, limit: number): Promise<RateDecision>;
}

export interface Repos {
  accounts: AccountsStore;
  deployments: DeploymentsStore;
  keys: KeysStore;
  documents: DocumentsStore;
  chunkIndex: ChunkIndexStore;
  termStats: TermStatsStore;
  training: TrainingStore;
  outbox: OutboxStore;
  leads: LeadsStore;
  corrections: CorrectionsStore;
  chatLogFeedback: ChatLogFeedbackStore;
  chatLogs: ChatLogsStore;
  conversations: ConversationsStore;
  ownerSessions: OwnerSessionsStore;
  loginAttempts: LoginAttemptsStore;
  ownerChatLogs: OwnerChatLogsStore;
  reports: ReportsStore;
  queueDepths: QueueDepthsStore;
  rateLimits: RateLimitStore;
}

export interface Store {
  engine: "sqlite" | "postgres";
  repos: Repos;
  /** One round trip to the database (health checks). */
  ping(): Promise<void>;
  /** Whether an error means the database can't be reached right now (a 503 to retry, not a 500). */
  isUnavailable(e: unknown): boolean;
  /** Any chunk indexed at all (the embedder's dimension check at start). */
  hasChunks(): Promise<boolean>;
  close(): Promise<void>;
}
