import { join } from "node:path";
import { type Config, loadConfig } from "./config/index.ts";
import { createLogger, type Logger } from "./log.ts";
import { createAccountsService } from "./owner/accounts.service.ts";
import { createDeploymentsService } from "./owner/deployments.service.ts";
import { createRateLimiter, type RateLimiter } from "./server/rate-limit.ts";
import { closeDatabase, type Db, openDatabase } from "./store/db.ts";
import { createAccountsRepo } from "./store/repos/accounts.repo.ts";
import { createDeploymentsRepo } from "./store/repos/deployments.repo.ts";
import { createKeysRepo } from "./store/repos/keys.repo.ts";
import { VERSION } from "./version.ts";
import { createDocumentsService } from "./documents/documents.service.ts";
import { createTrainingWorker } from "./documents/training.worker.ts";
import { checkVectorIndex } from "./documents/vector-index.ts";
import { DEFAULT_CHUNK_OPTIONS } from "./ingest/chunk.ts";
import { createParsePool } from "./ingest/parse-pool.ts";
import type { Embedder } from "./rag/embedder.ts";
import { createEmbedder } from "./rag/embedders/create-embedder.ts";
import { createChunkIndexRepo } from "./store/repos/chunk-index.repo.ts";
import { createDocumentsRepo } from "./store/repos/documents.repo.ts";
import { createMail } from "./mail/create-mail.ts";
import { createChatLogFeedbackRepo } from "./store/repos/chat-log-feedback.repo.ts";
import { createCorrectionsRepo } from "./store/repos/corrections.repo.ts";
import { createLeadsRepo } from "./store/repos/leads.repo.ts";
import { createOutboxRepo } from "./store/repos/outbox.repo.ts";
import { createCorrectionsService } from "./visitor/corrections.service.ts";
import { createFeedbackService } from "./visitor/feedback.service.ts";
import { createLeadsService } from "./visitor/leads.service.ts";
import { createChatStack } from "./chat/create-chat.ts";
import { llmBackendConfig } from "./chat/llm-config.ts";
import { createReportsService } from "./owner/reports.service.ts";
import { createSessionsService } from "./owner/sessions.service.ts";
import { createOwnerChatLogsRepo } from "./store/repos/owner-chat-logs.repo.ts";
import { createOwnerSessionsRepo } from "./store/repos/owner-sessions.repo.ts";
import { createReportsRepo } from "./store/repos/reports.repo.ts";
import { createLlmBackend } from "./llm/create-backend.ts";

/** Composition root: every dependency is built once here and passed in. */
export async function createServices(config: Config, opts: { log?: Logger } = {}) {
  const log = opts.log ?? createLogger(config.logLevel);
  const db = await openDatabase(config.dataDir);
  const outbox = createOutboxRepo(db);
  const repos = {
    accounts: createAccountsRepo(db),
    deployments: createDeploymentsRepo(db),
    keys: createKeysRepo(db),
    documents: createDocumentsRepo(db),
    chunkIndex: createChunkIndexRepo(db),
    outbox,
    leads: createLeadsRepo(db, { outbox }),
    corrections: createCorrectionsRepo(db),
    chatLogFeedback: createChatLogFeedbackRepo(db),
    ownerSessions: createOwnerSessionsRepo(db),
    ownerChatLogs: createOwnerChatLogsRepo(db),
    reports: createReportsRepo(db),
  };
  const mail = createMail({ config, log, outbox: repos.outbox });
  // The embedder loads lazily (CLI commands that don't need it stay fast) and once.
  let embedderPromise: Promise<Embedder | null> | null = null;
  const embedder = () => {
    embedderPromise ??= (async () => {
      const e = await createEmbedder({ kind: config.embedder, modelsDir: config.modelsDir, modelPath: config.embedderModel || undefined });
      const hasChunks = db.query("SELECT 1 FROM chunks LIMIT 1").get() !== null;
      checkVectorIndex(repos.chunkIndex, e, hasChunks);
      return e;
    })();
    return embedderPromise;
  };
  const training = createTrainingWorker({
    db,
    documents: repos.documents,
    deployments: repos.deployments,
    index: repos.chunkIndex,
    embedder,
    log,
    chunking: DEFAULT_CHUNK_OPTIONS,
  });
  const spoolDir = join(config.dataDir, "spool");
  // Parser processes start on first use, so commands that never parse stay fast.
  const parsePool = createParsePool({
    spoolDir,
    size: config.parseWorkers,
    timeoutMs: config.parseTimeoutMs,
    memoryLimitMb: config.parseMemoryMb,
    recycleAfter: config.parseRecycleAfter,
    recycleRssMb: config.parseRecycleRssMb,
    maxPages: config.maxPages,
    maxInflatedBytes: config.maxUploadBytes * 20,
    chunking: DEFAULT_CHUNK_OPTIONS,
    ocr: { enabled: config.ocr, maxPages: config.ocrMaxPages, timeoutMs: config.ocrTimeoutMs },
  });
  const corrections = createCorrectionsService({ corrections: repos.corrections, chatLogs: repos.chatLogFeedback });
  const llm = createLlmBackend(llmBackendConfig(config));
  const limiter = createRateLimiter() as RateLimiter;
  const answers = createChatStack({ db, config, accounts: repos.accounts, chunkIndex: repos.chunkIndex, embedder, backend: llm, corrections, log });
  const services = {
    version: VERSION,
    config,
    log,
    db: db as Db,
    repos,
    limiter,
    accounts: createAccountsService({ accounts: repos.accounts }),
    deployments: createDeploymentsService({ deployments: repos.deployments, keys: repos.keys }),
    embedder,
    training,
    /** Long-lived parser processes: parse and chunk every upload off this thread. */
    parsePool,
    /** private folder for uploads and parser replies in flight */
    spoolDir,
    documents: createDocumentsService({ db, config, documents: repos.documents, deployments: repos.deployments, index: repos.chunkIndex, training, prepare: parsePool.prepare, spoolDir }),
    mail,
    leads: createLeadsService({ leads: repos.leads, chatLogs: repos.chatLogFeedback, mailFrom: config.mailFrom, onQueued: mail.worker.wake }),
    feedback: createFeedbackService({ chatLogs: repos.chatLogFeedback }),
    /** Owner console sign-in: hashed session ids, idle and absolute timeouts, throttled logins. */
    sessions: createSessionsService({ accounts: repos.accounts, sessions: repos.ownerSessions, limiter, idleMs: config.sessionIdleSeconds * 1000, maxMs: config.sessionMaxSeconds * 1000 }),
    reports: createReportsService({ reports: repos.reports }),
    /** `corrections.findFor(deploymentId, question)` is what the chat pipeline asks before retrieval. */
    corrections,
    /** The answer backend (extractive, openai-compatible or local llama) behind its bounded queue. */
    llm,
    /** The answering pipeline: `chat.answer(request, signal)` streams sources, deltas and done. */
    chat: answers.chat,
    retriever: answers.retriever,
    shutdownHooks: [] as (() => Promise<void> | void)[],
    /** Background work for `serve`: the training queue (and, as they land, the mail outbox). */
    async startWorkers() {
      await embedder();
      training.start();
      services.shutdownHooks.push(() => training.stop());
      mail.start();
      services.shutdownHooks.push(() => mail.stop());
    },
    async close() {
      for (const hook of services.shutdownHooks.reverse()) await hook();
      await llm.close();
      await parsePool.close();
      const e = embedderPromise ? await embedderPromise.catch(() => null) : null;
      await e?.close?.();
      closeDatabase(db);
    },
  };
  return services;
}

export type Services = Awaited<ReturnType<typeof createServices>>;

/** Test and tooling convenience: services for a data dir with defaults. */
export function configFor(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({ env: { ...env, DOCCHAT_DATA: dataDir, DOCCHAT_LOG_LEVEL: env.DOCCHAT_LOG_LEVEL ?? "silent" } });
}
