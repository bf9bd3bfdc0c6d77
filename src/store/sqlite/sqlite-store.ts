import { createRateLimiter } from "../../server/rate-limit.ts";
import { closeDatabase, type Db, flushWal, openDatabase } from "./db.ts";
import { createAccountsRepo } from "./repos/accounts.sqlite.ts";
import { createChatLogFeedbackRepo } from "./repos/chat-log-feedback.sqlite.ts";
import { createChatLogsRepo } from "./repos/chat-logs.sqlite.ts";
import { createChunkIndexRepo } from "./chunk-index.sqlite.ts";
import { createConversationsRepo } from "./repos/conversations.sqlite.ts";
import { createCorrectionsRepo } from "./repos/corrections.sqlite.ts";
import { createDeploymentsRepo } from "./repos/deployments.sqlite.ts";
import { createDocumentsRepo } from "./repos/documents.sqlite.ts";
import { createKeysRepo } from "./repos/keys.sqlite.ts";
import { createLeadsRepo } from "./repos/leads.sqlite.ts";
import { createLoginAttemptsRepo } from "./repos/login-attempts.sqlite.ts";
import { createOutboxRepo } from "./repos/outbox.sqlite.ts";
import { createOwnerChatLogsRepo } from "./repos/owner-chat-logs.sqlite.ts";
import { createOwnerSessionsRepo } from "./repos/owner-sessions.sqlite.ts";
import { createQueueDepthsRepo } from "./repos/queue-depths.sqlite.ts";
import { createReportsRepo } from "./repos/reports.sqlite.ts";
import { createTermStatsRepo } from "./term-stats.sqlite.ts";
import type { AsyncRepo, ChunkIndexStore, RateLimitStore, Repos, Store } from "../contract/store.contract.ts";
import { createSqliteTrainingStore } from "./training.sqlite.ts";

/** Methods that stay synchronous (in-process state); everything else becomes a promise. */
const SYNC = new Set(["hasVectors"]);

/**
 * A synchronous SQLite repo as the async store contract. bun:sqlite answers in microseconds on this thread, so
 * the promise is only the shape the contract shares with PostgreSQL; a throw becomes a rejection.
 */
export function asyncRepo<R extends object>(repo: R): AsyncRepo<R> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(repo)) {
    if (typeof value !== "function" || SYNC.has(name)) {
      out[name] = value;
      continue;
    }
    out[name] = (...args: unknown[]) => {
      try {
        return Promise.resolve((value as (...a: unknown[]) => unknown).apply(repo, args));
      } catch (e) {
        return Promise.reject(e);
      }
    };
  }
  return out as AsyncRepo<R>;
}

/** One process per data dir (data-dir-lock.ts), so an in-memory sliding log is exact. */
export function createMemoryRateLimits(opts: Parameters<typeof createRateLimiter>[0] = {}): RateLimitStore {
  const limiter = createRateLimiter(opts);
  return {
    hit: async (identity, limit) => limiter.hit(identity, limit),
    peek: async (identity, limit) => limiter.peek(identity, limit),
  };
}

/** The synchronous SQLite repos, for SQLite-only tools and tests that read the database on this thread. */
export function sqliteSyncRepos(db: Db) {
  const accounts = createAccountsRepo(db);
  const conversations = createConversationsRepo(db);
  const outbox = createOutboxRepo(db);
  return {
    accounts,
    deployments: createDeploymentsRepo(db),
    keys: createKeysRepo(db),
    documents: createDocumentsRepo(db),
    chunkIndex: createChunkIndexRepo(db),
    termStats: createTermStatsRepo(db),
    outbox,
    leads: createLeadsRepo(db, { outbox }),
    corrections: createCorrectionsRepo(db),
    chatLogFeedback: createChatLogFeedbackRepo(db),
    chatLogs: createChatLogsRepo(db, { accounts, conversations }),
    conversations,
    ownerSessions: createOwnerSessionsRepo(db),
    loginAttempts: createLoginAttemptsRepo(db),
    ownerChatLogs: createOwnerChatLogsRepo(db),
    reports: createReportsRepo(db),
    queueDepths: createQueueDepthsRepo(db),
  };
}
export type SqliteSyncRepos = ReturnType<typeof sqliteSyncRepos>;

/** The store contract over the synchronous repos (the same instances, so caches are shared). */
export function sqliteRepos(db: Db, sync: SqliteSyncRepos = sqliteSyncRepos(db)): Repos {
  const { insertStaged: _s, publishStaged: _p, insertVectors: _v, ...searchable } = asyncRepo(sync.chunkIndex);
  const chunkIndex: ChunkIndexStore = { ...searchable, refresh: async () => {} };
  return {
    accounts: asyncRepo(sync.accounts),
    deployments: asyncRepo(sync.deployments),
    keys: asyncRepo(sync.keys),
    documents: {
      ...asyncRepo(sync.documents),
      // a large document's parts were written unsynced: flush them off the event loop before the row's commit
      insert: async (input) => {
        if (input.bytes === undefined) await flushWal(db);
        return sync.documents.insert(input);
      },
    },
    chunkIndex,
    termStats: asyncRepo(sync.termStats),
    training: createSqliteTrainingStore(db, { documents: sync.documents, deployments: sync.deployments, index: sync.chunkIndex }),
    outbox: asyncRepo(sync.outbox),
    leads: asyncRepo(sync.leads),
    corrections: asyncRepo(sync.corrections),
    chatLogFeedback: asyncRepo(sync.chatLogFeedback),
    chatLogs: asyncRepo(sync.chatLogs),
    conversations: asyncRepo(sync.conversations),
    ownerSessions: asyncRepo(sync.ownerSessions),
    loginAttempts: asyncRepo(sync.loginAttempts),
    ownerChatLogs: asyncRepo(sync.ownerChatLogs),
    reports: asyncRepo(sync.reports),
    queueDepths: asyncRepo(sync.queueDepths),
    rateLimits: createMemoryRateLimits(),
  };
}

export interface SqliteStore extends Store {
  engine: "sqlite";
  /** The open database, for SQLite-only tools (backup, diagnostics) and tests. */
  db: Db;
  /** The same repos, synchronous (SQLite-only tools and tests). */
  sync: SqliteSyncRepos;
}

/** The embedded default: the data dir's SQLite database, migrated, as the store contract. */
export async function createSqliteStore(dataDir: string): Promise<SqliteStore> {
  const db = await openDatabase(dataDir);
  const sync = sqliteSyncRepos(db);
  return {
    engine: "sqlite",
    db,
    sync,
    repos: sqliteRepos(db, sync),
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
