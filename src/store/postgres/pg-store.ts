// Bun.SQL is read where a connection is made: importing it evaluates Bun's SQL module on every start (~5 ms before /health).
import type { SQL } from "bun";
import type { Repos, Store } from "../contract/store.contract.ts";
import { createPgChunkIndex, createPgTermStats } from "./chunk-index.pg.ts";
import { scrubPassword } from "./diagnostics.pg.ts";
import { migratePg } from "./migrate.pg.ts";
import { pgConnectOptions } from "./pg-url.ts";
import { createPgRateLimits } from "./rate-limits.pg.ts";
import { createPgAccountsRepo } from "./repos/accounts.pg.ts";
import { createPgChatLogExportRepo } from "./repos/chat-log-export.pg.ts";
import { createPgChatLogFeedbackRepo } from "./repos/chat-log-feedback.pg.ts";
import { createPgChatLogsRepo } from "./repos/chat-logs.pg.ts";
import { createPgConversationLogsRepo } from "./repos/conversation-logs.pg.ts";
import { createPgConversationsRepo } from "./repos/conversations.pg.ts";
import { createPgCorrectionsRepo } from "./repos/corrections.pg.ts";
import { createPgDeploymentsRepo } from "./repos/deployments.pg.ts";
import { createPgDocumentsRepo } from "./repos/documents.pg.ts";
import { createPgKeysRepo } from "./repos/keys.pg.ts";
import { createPgLeadsRepo } from "./repos/leads.pg.ts";
import { createPgLoginAttemptsRepo } from "./repos/login-attempts.pg.ts";
import { createPgNeighboursRepo } from "./repos/neighbours.pg.ts";
import { createPgOutboxRepo } from "./repos/outbox.pg.ts";
import { createPgOwnerChatLogsRepo } from "./repos/owner-chat-logs.pg.ts";
import { createPgOwnerSessionsRepo } from "./repos/owner-sessions.pg.ts";
import { createPgQueueDepthsRepo } from "./repos/queue-depths.pg.ts";
import { createPgReportsRepo } from "./repos/reports.pg.ts";
import { createPgTestQuestionsRepo } from "./repos/test-questions.pg.ts";
import { createPgVisitorDataRepo } from "./repos/visitor-data.pg.ts";
import { createPgWebhooksRepo } from "./repos/webhooks.pg.ts";
import { createPgTrainingStore } from "./training.pg.ts";

export interface PgStoreOptions {
  /** connections in this node's pool (default 10) */
  max?: number;
  /** memory for the binary codes of vectors this node holds (DOCCHAT_VECTOR_CACHE_MB; default 256) */
  vectorCacheMb?: number;
}

/** host:port/db of a connection URL, never its password: for messages and logs. */
export function describePgUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || u.searchParams.get("host") || "localhost"}:${u.port || "5432"}${u.pathname || "/"}`;
  } catch {
    return "(unparseable database URL)";
  }
}

/**
 * Driver and server errors that mean "PostgreSQL is away" (refused, closed or timed-out connections; the server
 * shutting down or not yet accepting connections), as opposed to a bad query.
 */
export function isPgUnavailable(e: unknown): boolean {
  const code = String((e as { code?: unknown } | null)?.code ?? "");
  const state = String((e as { errno?: unknown; sqlState?: unknown } | null)?.sqlState ?? (e as { errno?: unknown } | null)?.errno ?? "");
  return (
    /^ERR_POSTGRES_(CONNECTION_(CLOSED|REFUSED|TIMEOUT)|IDLE_TIMEOUT|LIFETIME_TIMEOUT|CONNECTION_FAILED|TLS)/.test(code) ||
    /^(57P0[123]|08\d{3}|53300)$/.test(state) ||
    /^(57P0[123]|08\d{3}|53300)$/.test(code)
  );
}

export interface PgStore extends Store {
  engine: "postgres";
  sql: SQL;
}

/**
 * Every piece of state in PostgreSQL (issue 12), shared by any number of nodes: migrated under an advisory lock,
 * one pooled Bun.sql client, every repo of the contract (store.ts).
 */
export async function createPgStore(url: string, opts: PgStoreOptions = {}): Promise<PgStore> {
  const sql = new Bun.SQL(url, { ...pgConnectOptions(url), max: opts.max ?? 10 });
  try {
    return await openPgStore(sql, opts);
  } catch (e) {
    // nothing half-open is left behind (the pool, the key listener's connection)
    await sql.close().catch(() => {});
    // "Failed to connect" alone doesn't say to what: name the server (never the password) and the driver's code
    const code = (e as { code?: string }).code;
    const message = scrubPassword(e instanceof Error ? e.message : String(e), url);
    throw new Error(
      `PostgreSQL at ${describePgUrl(url)}: ${message}${code ? ` (${code})` : ""}. Check DOCCHAT_DATABASE_URL; \`docchat doctor\` checks the server, pgvector and the schema.`,
      { cause: e },
    );
  }
}

async function openPgStore(sql: SQL, opts: PgStoreOptions): Promise<PgStore> {
  const closers: (() => Promise<void> | void)[] = [];
  await migratePg(sql);
  const index = await createPgChunkIndex(sql, {
    ...(opts.vectorCacheMb === undefined ? {} : { codeBudgetBytes: opts.vectorCacheMb * 1024 * 1024 }),
  });
  const chunkIndex: Repos["chunkIndex"] = index;
  const termStats: Repos["termStats"] = createPgTermStats(sql);

  // deployments, keys, documents, queue depths, training
  // keys listen for changes on a connection of their own (sql.listen); unlisten on close
  const keys = await createPgKeysRepo(sql);
  closers.push(() => keys.close());
  const core: Pick<Repos, "deployments" | "keys" | "documents" | "queueDepths" | "training"> = {
    deployments: createPgDeploymentsRepo(sql, index, { onChange: keys.invalidate }),
    keys,
    documents: createPgDocumentsRepo(sql),
    queueDepths: createPgQueueDepthsRepo(sql),
    training: createPgTrainingStore(sql, index),
  };

  // accounts, visitors and owners
  const visitor = {
    accounts: createPgAccountsRepo(sql),
    conversations: createPgConversationsRepo(sql),
    chatLogs: createPgChatLogsRepo(sql),
    chatLogFeedback: createPgChatLogFeedbackRepo(sql),
    corrections: createPgCorrectionsRepo(sql),
    outbox: createPgOutboxRepo(sql),
    leads: createPgLeadsRepo(sql),
    ownerSessions: createPgOwnerSessionsRepo(sql),
    loginAttempts: createPgLoginAttemptsRepo(sql),
    ownerChatLogs: createPgOwnerChatLogsRepo(sql),
    reports: createPgReportsRepo(sql),
    conversationLogs: createPgConversationLogsRepo(sql),
    visitorData: createPgVisitorDataRepo(sql),
    testQuestions: createPgTestQuestionsRepo(sql),
  };

  // agents and automation: webhooks, conversation export, passages for MCP fetch
  const agents = {
    webhooks: createPgWebhooksRepo(sql),
    chatLogExport: createPgChatLogExportRepo(sql),
    neighbours: createPgNeighboursRepo(sql),
  };

  const repos: Repos = { chunkIndex, termStats, ...core, ...visitor, ...agents, rateLimits: createPgRateLimits(sql) };
  return {
    engine: "postgres",
    sql,
    repos,
    async ping() {
      await sql`SELECT 1`;
    },
    isUnavailable: isPgUnavailable,
    async hasChunks() {
      return ((await sql`SELECT EXISTS (SELECT 1 FROM chunks) AS ok`) as { ok: boolean }[])[0]?.ok ?? false;
    },
    async close() {
      for (const c of closers.reverse()) await c();
      await sql.close();
    },
  };
}
