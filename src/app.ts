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
import { checkVectorIndex, recordedEmbedder } from "./documents/vector-index.ts";
import { DEFAULT_CHUNK_OPTIONS } from "./ingest/chunk.ts";
import { createParsePool } from "./ingest/parse-pool.ts";
import type { Embedder } from "./rag/embedder.ts";
import { createEmbedder, embedderConfig } from "./rag/embedders/create-embedder.ts";
import { ModelServerUnavailableError } from "./rag/remote/model-server.ts";
import { createReranker } from "./rag/rerank/create-reranker.ts";
import type { Reranker } from "./rag/rerank/reranker.ts";
import { type RetrievalModeInfo, retrievalMode } from "./rag/retrieval-mode.ts";
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
import { createLoginAttemptsRepo } from "./store/repos/login-attempts.repo.ts";
import { createReportsRepo } from "./store/repos/reports.repo.ts";
import { createLlmBackend } from "./llm/create-backend.ts";
import { createMetrics } from "./metrics/metrics.ts";
import { observeChat, observeDebits } from "./metrics/observe-chat.ts";
import { createQueueDepthsRepo } from "./store/repos/queue-depths.repo.ts";

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
    loginAttempts: createLoginAttemptsRepo(db),
    ownerChatLogs: createOwnerChatLogsRepo(db),
    reports: createReportsRepo(db),
  };
  const mail = createMail({ config, log, outbox: repos.outbox });
  /** The Prometheus registry of this service (GET /metrics when DOCCHAT_METRICS_TOKEN is set). */
  const metrics = createMetrics({ depths: createQueueDepthsRepo(db) });
  // The embedder loads lazily (CLI commands that don't need it stay fast) and once. An embeddings server that
  // can't be reached while nothing tells its dimension leaves it unloaded: the next caller tries again.
  let embedderPromise: Promise<Embedder | null> | null = null;
  // After a failed attempt the server is asked again at most every few seconds, so questions asked meanwhile go
  // straight to keyword retrieval instead of each waiting out the retries.
  let unavailable: { at: number; error: Error } | null = null;
  const embedder = () => {
    if (embedderPromise) return embedderPromise;
    if (unavailable && Date.now() - unavailable.at < 5000) return Promise.reject(unavailable.error);
    const loading = (async () => {
      const recorded = recordedEmbedder(repos.chunkIndex);
      const e = await createEmbedder({ ...embedderConfig(config), knownDimension: (id) => (recorded?.id === id ? recorded.dimension : undefined) });
      const hasChunks = db.query("SELECT 1 FROM chunks LIMIT 1").get() !== null;
      checkVectorIndex(repos.chunkIndex, e, hasChunks);
      if (e && (e as { dimensionFromIndex?: boolean }).dimensionFromIndex) {
        log.warn("embeddings server unreachable at start; answers use keyword retrieval and training waits until it is back", { embedder: e.id });
      }
      return e;
    })();
    embedderPromise = loading;
    loading.catch((e: unknown) => {
      if (e instanceof ModelServerUnavailableError && embedderPromise === loading) {
        embedderPromise = null;
        unavailable = { at: Date.now(), error: e };
      }
    });
    return loading;
  };
  // The reranker loads on the first question; one that cannot be loaded is reported once and left out.
  let rerankerPromise: Promise<Reranker | null> | null = null;
  const reranker = () => {
    rerankerPromise ??= createReranker(config).catch((e: unknown) => {
      log.error("reranker could not be loaded; answers are judged without it", { error: String((e as Error).message ?? e) });
      return null;
    });
    return rerankerPromise;
  };
  let mode: RetrievalModeInfo | null = null;
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
  const llm = createLlmBackend(llmBackendConfig(config), { queueObserver: metrics.modelQueue });
  const limiter = createRateLimiter() as RateLimiter;
  const answers = createChatStack({ db, config, accounts: observeDebits(repos.accounts, metrics), chunkIndex: repos.chunkIndex, embedder, reranker, backend: llm, corrections, log });
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
    reranker,
    /** keyword, embeddings or reranker, with the models behind it (read from config and the models folder once) */
    retrievalMode: () => {
      mode ??= retrievalMode(config);
      return mode;
    },
    training,
    /** Long-lived parser processes: parse and chunk every upload off this thread. */
    parsePool,
    /** private folder for uploads and parser replies in flight */
    spoolDir,
    documents: createDocumentsService({ db, config, documents: repos.documents, deployments: repos.deployments, index: repos.chunkIndex, training, prepare: parsePool.prepare, spoolDir }),
    mail,
    leads: createLeadsService({ leads: repos.leads, chatLogs: repos.chatLogFeedback, mailFrom: config.mailFrom, onQueued: mail.worker.wake }),
    feedback: createFeedbackService({ chatLogs: repos.chatLogFeedback }),
    /** Owner console sign-in: hashed session ids, idle and absolute timeouts, logins throttled per email+address. */
    sessions: createSessionsService({ accounts: repos.accounts, sessions: repos.ownerSessions, attempts: repos.loginAttempts, idleMs: config.sessionIdleSeconds * 1000, maxMs: config.sessionMaxSeconds * 1000 }),
    reports: createReportsService({ reports: repos.reports }),
    /** `corrections.findFor(deploymentId, question)` is what the chat pipeline asks before retrieval. */
    corrections,
    /** The answer backend (extractive, openai-compatible or local llama) behind its bounded queue. */
    llm,
    /** The answering pipeline: `chat.answer(request, signal)` streams sources, deltas and done. */
    chat: observeChat(answers.chat, metrics),
    metrics,
    retriever: answers.retriever,
    shutdownHooks: [] as (() => Promise<void> | void)[],
    /** Background work for `serve`: the training queue (and, as they land, the mail outbox). */
    async startWorkers() {
      await embedder().catch((e: unknown) => {
        if (!(e instanceof ModelServerUnavailableError)) throw e;
        log.warn("embeddings server unreachable at start; answers use keyword retrieval and training waits until it is back", { error: e.message });
      });
      // Loaded now rather than on the first question: a broken reranker shows at start, and a GGUF one loads
      // node-llama-cpp before the server listens (see models/llama-runtime.ts).
      await reranker();
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
      await (rerankerPromise ? await rerankerPromise : null)?.close?.();
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
