import type { AccountsStore } from "./accounts.contract.ts";
import type { ChatLogExportStore } from "./chat-log-export.contract.ts";
import type { ChatLogFeedbackStore, ChatLogsStore, ConversationsStore, OwnerChatLogsStore } from "./chat-logs.contract.ts";
import type { ChunkIndexStore, TermStatsStore } from "./chunk-index.contract.ts";
import type { CorrectionsStore } from "./corrections.contract.ts";
import type { DeploymentsStore } from "./deployments.contract.ts";
import type { DocumentsStore } from "./documents.contract.ts";
import type { KeysStore } from "./keys.contract.ts";
import type { LeadsStore } from "./leads.contract.ts";
import type { NeighboursStore } from "./neighbours.contract.ts";
import type { OutboxStore } from "./outbox.contract.ts";
import type { LoginAttemptsStore, OwnerSessionsStore } from "./owner.contract.ts";
import type { ConversationLogsStore, TestQuestionsStore, VisitorDataStore } from "./owner-insight.contract.ts";
import type { RateLimitStore } from "./rate-limits.contract.ts";
import type { ReportsStore } from "./reports.contract.ts";
import type { TrainingStore } from "./training.contract.ts";
import type { WebhooksStore } from "./webhooks.contract.ts";

/** Backlog sizes for the metrics endpoint, read at scrape time. */
export interface QueueDepthsStore {
  /** documents queued or processing */
  trainingQueue(): Promise<number>;
  /** mail pending or being sent */
  mailOutbox(): Promise<number>;
}

/**
 * Every repository of the store (README.md in this folder). Services depend on these interfaces only; each driver
 * (store/sqlite, store/postgres) implements all of them, and only the driver knows which engine runs and what SQL
 * it speaks.
 */
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
  /** signed-webhook endpoints and their delivery outbox */
  webhooks: WebhooksStore;
  /** a deployment's chat logs for a date range, a page at a time */
  chatLogExport: ChatLogExportStore;
  /** passages by id with their neighbours (MCP fetch) */
  neighbours: NeighboursStore;
  rateLimits: RateLimitStore;
  /** issue 22: the owner's chat logs as conversations, content-gap candidates, the citation viewer's passages */
  conversationLogs: ConversationLogsStore;
  /** retention policy and purge, "no transcripts", erasure of a visitor and its record */
  visitorData: VisitorDataStore;
  testQuestions: TestQuestionsStore;
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
