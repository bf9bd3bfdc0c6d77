import type { Repos, Store } from "../contract/store.contract.ts";
import { createChunkIndexWriter, createSqliteChunkIndex } from "./chunk-index.sqlite.ts";
import { closeDatabase, type Db, openDatabase } from "./db.ts";
import { createMemoryRateLimits } from "./memory-rate-limits.ts";
import { createSqliteAccountsRepo } from "./repos/accounts.sqlite.ts";
import { createSqliteChatLogExportRepo } from "./repos/chat-log-export.sqlite.ts";
import { createSqliteChatLogFeedbackRepo } from "./repos/chat-log-feedback.sqlite.ts";
import { createSqliteChatLogsRepo } from "./repos/chat-logs.sqlite.ts";
import { createSqliteConversationLogsRepo } from "./repos/conversation-logs.sqlite.ts";
import { createSqliteConversationsRepo } from "./repos/conversations.sqlite.ts";
import { createSqliteCorrectionsRepo } from "./repos/corrections.sqlite.ts";
import { createSqliteDeploymentsRepo } from "./repos/deployments.sqlite.ts";
import { createSqliteDocumentsRepo } from "./repos/documents.sqlite.ts";
import { createSqliteKeysRepo } from "./repos/keys.sqlite.ts";
import { createSqliteLeadsRepo } from "./repos/leads.sqlite.ts";
import { createSqliteLoginAttemptsRepo } from "./repos/login-attempts.sqlite.ts";
import { createSqliteNeighboursRepo } from "./repos/neighbours.sqlite.ts";
import { createSqliteOutboxRepo } from "./repos/outbox.sqlite.ts";
import { createSqliteOwnerChatLogsRepo } from "./repos/owner-chat-logs.sqlite.ts";
import { createSqliteOwnerSessionsRepo } from "./repos/owner-sessions.sqlite.ts";
import { createSqliteQueueDepthsRepo } from "./repos/queue-depths.sqlite.ts";
import { createSqliteReportsRepo } from "./repos/reports.sqlite.ts";
import { createSqliteTestQuestionsRepo } from "./repos/test-questions.sqlite.ts";
import { createSqliteVisitorDataRepo } from "./repos/visitor-data.sqlite.ts";
import { createSqliteWebhooksRepo } from "./repos/webhooks.sqlite.ts";
import { createSqliteTermStats } from "./term-stats.sqlite.ts";
import { createSqliteTrainingStore } from "./training.sqlite.ts";
import { setCodeBudget } from "./vector-code-cache.ts";

/**
 * Every repository of the contract over one SQLite database. bun:sqlite answers in microseconds on this thread,
 * so each method does its work synchronously and returns a settled promise: the shape it shares with PostgreSQL.
 */
export function sqliteRepos(db: Db): Repos {
  const writer = createChunkIndexWriter(db);
  return {
    accounts: createSqliteAccountsRepo(db),
    deployments: createSqliteDeploymentsRepo(db),
    keys: createSqliteKeysRepo(db),
    documents: createSqliteDocumentsRepo(db),
    chunkIndex: createSqliteChunkIndex(db, writer),
    termStats: createSqliteTermStats(db),
    training: createSqliteTrainingStore(db, writer),
    outbox: createSqliteOutboxRepo(db),
    leads: createSqliteLeadsRepo(db),
    corrections: createSqliteCorrectionsRepo(db),
    chatLogFeedback: createSqliteChatLogFeedbackRepo(db),
    chatLogs: createSqliteChatLogsRepo(db),
    conversations: createSqliteConversationsRepo(db),
    ownerSessions: createSqliteOwnerSessionsRepo(db),
    loginAttempts: createSqliteLoginAttemptsRepo(db),
    ownerChatLogs: createSqliteOwnerChatLogsRepo(db),
    reports: createSqliteReportsRepo(db),
    queueDepths: createSqliteQueueDepthsRepo(db),
    webhooks: createSqliteWebhooksRepo(db),
    chatLogExport: createSqliteChatLogExportRepo(db),
    neighbours: createSqliteNeighboursRepo(db),
    rateLimits: createMemoryRateLimits(),
    conversationLogs: createSqliteConversationLogsRepo(db),
    visitorData: createSqliteVisitorDataRepo(db),
    testQuestions: createSqliteTestQuestionsRepo(db),
  };
}

export interface SqliteStore extends Store {
  engine: "sqlite";
  /** The open database, for SQLite-only tools (backup, diagnostics) and tests. */
  db: Db;
}

/**
 * The embedded default: the data dir's SQLite database, migrated, as the store contract. `vectorCacheMb`: memory
 * for large deployments' vector codes searched in memory (vector-code-cache.ts).
 */
export async function createSqliteStore(dataDir: string, opts: { vectorCacheMb?: number } = {}): Promise<SqliteStore> {
  const db = await openDatabase(dataDir);
  if (opts.vectorCacheMb !== undefined) setCodeBudget(db, opts.vectorCacheMb * 1024 * 1024);
  return {
    engine: "sqlite",
    db,
    repos: sqliteRepos(db),
    async ping() {
      db.query("SELECT 1").get();
    },
    // the database is a file this process holds open: it can fail, but not be "away"
    isUnavailable: () => false,
    async hasChunks() {
      return db.query("SELECT 1 FROM chunks LIMIT 1").get() !== null;
    },
    async close() {
      closeDatabase(db);
    },
  };
}
