import { join } from "node:path";
import { createChatStack } from "./chat/create-chat.ts";
import { llmBackendConfig } from "./chat/llm-config.ts";
import { observeChat, observeDebits } from "./chat/observe-chat.ts";
import { type Config, loadConfig } from "./config/index.ts";
import { createDocumentsService } from "./documents/documents.service.ts";
import { prepareWorkerCommand } from "./documents/prepared-analysis.ts";
import { createTrainingWorker } from "./documents/training.worker.ts";
import { createUploadAdmission } from "./documents/upload-admission.ts";
import { checkVectorIndex, recordedEmbedder } from "./documents/vector-index.ts";
import { createEvalService } from "./eval/eval.service.ts";
import { DEFAULT_CHUNK_OPTIONS } from "./ingest/chunk.ts";
import { createBatchingPrepare } from "./ingest/parse-batching.ts";
import { createParsePool } from "./ingest/parse-pool.ts";
import { createLlmBackend } from "./llm/create-backend.ts";
import { createLogger, type Logger } from "./log.ts";
import { createMail } from "./mail/create-mail.ts";
import { createMcpTools } from "./mcp/mcp-tools.ts";
import { createMetrics } from "./metrics/metrics.ts";
import { CIRCUIT_STATUS_FILE, createCircuitRegistry } from "./net/circuit-registry.ts";
import { createAccountsService } from "./owner/accounts.service.ts";
import { createChatExportService } from "./owner/chat-export.service.ts";
import { createChatLogsService } from "./owner/chat-logs.service.ts";
import { createCitationsService } from "./owner/citations.service.ts";
import { createContentGapsService } from "./owner/content-gaps.service.ts";
import { createConversationsService } from "./owner/conversations.service.ts";
import { createDeploymentsService } from "./owner/deployments.service.ts";
import { createOwnerJobs } from "./owner/owner-jobs.ts";
import { createPrivacyService } from "./owner/privacy.service.ts";
import { createReportsService } from "./owner/reports.service.ts";
import { createSessionsService } from "./owner/sessions.service.ts";
import { createTestQuestionsService } from "./owner/test-questions.service.ts";
import { composeAnswer } from "./rag/compose-answer.ts";
import type { Embedder } from "./rag/embedder.ts";
import { createEmbedder, embedderConfig } from "./rag/embedders/create-embedder.ts";
import { ModelServerUnavailableError } from "./rag/remote/model-server.ts";
import { createReranker } from "./rag/rerank/create-reranker.ts";
import type { Reranker } from "./rag/rerank/reranker.ts";
import { type RetrievalModeInfo, retrievalMode } from "./rag/retrieval-mode.ts";
import { ANALYZER_VERSION } from "./rag/terms.ts";
import type { Store } from "./store/contract/index.ts";
import { createPgStore } from "./store/postgres/pg-store.ts";
import { createSqliteStore } from "./store/sqlite/sqlite-store.ts";
import { VERSION } from "./version.ts";
import { createCorrectionsService } from "./visitor/corrections.service.ts";
import { createFeedbackService } from "./visitor/feedback.service.ts";
import { createLeadsService } from "./visitor/leads.service.ts";
import { createWebhooks } from "./webhooks/create-webhooks.ts";
import { emitOnChat, emitOnDebits, emitOnFeedback, emitOnTraining, leadCreatedEmitter } from "./webhooks/webhook-emitters.ts";

/** Composition root: every dependency is built once here and passed in. */
export async function createServices(config: Config, opts: { log?: Logger } = {}) {
  const log = opts.log ?? createLogger(config.logLevel);
  const store: Store = config.databaseUrl
    ? await createPgStore(config.databaseUrl, { max: config.databasePool, vectorCacheMb: config.vectorCacheMb })
    : await createSqliteStore(config.dataDir, { vectorCacheMb: config.vectorCacheMb });
  const repos = store.repos;
  // keyword indexes built from now on record this analysis; those built by another are rebuilt (keyword-reindex.ts)
  if ((await repos.chunkIndex.meta("keyword_analyzer")) !== ANALYZER_VERSION)
    await repos.chunkIndex.setMeta("keyword_analyzer", ANALYZER_VERSION);
  const mail = createMail({ config, log, outbox: repos.outbox });
  /** Signed webhooks: endpoints, the delivery log and the outbox worker; `emit` queues an event. */
  const webhooks = createWebhooks({ config, log, store: repos.webhooks, version: VERSION });
  /** The Prometheus registry of this service (GET /metrics when DOCCHAT_METRICS_TOKEN is set). */
  /** One circuit per model server; their state goes to the data dir for doctor, and to metrics. */
  const circuits = createCircuitRegistry({
    failures: config.modelCircuitFailures,
    coolDownMs: config.modelCircuitCoolDownMs,
    statusFile: join(config.dataDir, CIRCUIT_STATUS_FILE),
    log,
  });
  const metrics = createMetrics({
    depths: repos.queueDepths,
    webhookOutbox: () => repos.webhooks.depth(),
    circuits: circuits.snapshots,
    enabled: config.metricsToken !== "",
  });
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
      await repos.chunkIndex.refresh();
      const recorded = await recordedEmbedder(repos.chunkIndex);
      const cfg = embedderConfig(config);
      const e = await createEmbedder({
        ...cfg,
        remote: cfg.remote && { ...cfg.remote, breaker: circuits.for("embeddings", cfg.remote.url) },
        knownDimension: (id) => (recorded?.id === id ? recorded.dimension : undefined),
      });
      await checkVectorIndex(repos.chunkIndex, e, () => store.hasChunks());
      if (e && (e as { dimensionFromIndex?: boolean }).dimensionFromIndex) {
        log.warn("embeddings server unreachable at start; answers use keyword retrieval and training waits until it is back", {
          embedder: e.id,
        });
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
    rerankerPromise ??= createReranker(config, { breaker: config.rerankUrl ? circuits.for("rerank", config.rerankUrl) : undefined }).catch(
      (e: unknown) => {
        log.error("reranker could not be loaded; answers are judged without it", { error: String((e as Error).message ?? e) });
        return null;
      },
    );
    return rerankerPromise;
  };
  let mode: RetrievalModeInfo | null = null;
  const training = createTrainingWorker({
    documents: repos.documents,
    training: emitOnTraining(repos.training, { webhooks: webhooks.service, documents: repos.documents }),
    index: repos.chunkIndex,
    embedder,
    log,
    chunking: DEFAULT_CHUNK_OPTIONS,
    leaseMs: config.trainingLeaseSeconds * 1000,
    pinnedLanguages: async (id) => (await repos.deployments.findById(id))?.languages ?? [],
  });
  const spoolDir = join(config.dataDir, "spool");
  // Parser processes start on first use, so commands that never parse stay fast.
  const parsePool = createParsePool({
    spoolDir,
    command: prepareWorkerCommand(),
    size: config.parseWorkers,
    timeoutMs: config.parseTimeoutMs,
    memoryLimitMb: config.parseMemoryMb,
    recycleAfter: config.parseRecycleAfter,
    recycleRssMb: config.parseRecycleRssMb,
    maxPages: config.maxPages,
    maxInflatedBytes: config.maxUploadBytes * 20,
    chunking: DEFAULT_CHUNK_OPTIONS,
    ocr: { enabled: config.ocr, maxPages: config.ocrMaxPages, timeoutMs: config.ocrTimeoutMs, tessdata: config.ocrTessdata || undefined },
  });
  const corrections = createCorrectionsService({ corrections: repos.corrections, chatLogs: repos.chatLogFeedback });
  const llmConfig = llmBackendConfig(config);
  const llm = createLlmBackend(llmConfig, {
    queueObserver: metrics.modelQueue,
    composer: composeAnswer,
    breaker: llmConfig.kind === "openai" && llmConfig.url ? circuits.for("llm", llmConfig.url) : undefined,
  });
  const answers = createChatStack({
    config,
    repos: {
      ...repos,
      chatLogs: emitOnDebits(observeDebits(repos.chatLogs, metrics), {
        webhooks: webhooks.service,
        deployments: repos.deployments,
        threshold: config.webhookBalanceLow,
      }),
    },
    embedder,
    reranker,
    backend: llm,
    corrections,
    peekCorrections: { findFor: corrections.peek },
    log,
  });
  const deployments = createDeploymentsService({
    deployments: repos.deployments,
    keys: repos.keys,
    languagesChanged: async (id) => {
      await repos.chunkIndex.keywordReindexRequest(id);
      training.kick();
    },
  });
  const privacy = createPrivacyService({ data: repos.visitorData, deployments: repos.deployments, log });
  const testQuestions = createTestQuestionsService({
    tests: repos.testQuestions,
    deployments: repos.deployments,
    accounts: repos.accounts,
    dry: answers.dry,
    log,
  });
  const ownerJobs = createOwnerJobs({ tests: testQuestions, privacy, log });
  const chat = emitOnChat(observeChat(answers.chat, metrics), webhooks.service);
  const services = {
    version: VERSION,
    config,
    log,
    store,
    repos,
    /** Requests per rolling minute, shared by every node of the store. */
    limiter: repos.rateLimits,
    accounts: createAccountsService({ accounts: repos.accounts }),
    deployments,
    /** `docchat eval` and the owner API's eval: cases through the answering pipeline, judged per style; nothing logged or charged. */
    eval: createEvalService({
      chat: answers.evalChat,
      deployment: (id, accountId) => deployments.getOrThrow(id, accountId),
      account: (id) => repos.accounts.findById(id),
    }),
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
    documents: createDocumentsService({
      config,
      documents: repos.documents,
      deployments: repos.deployments,
      trainingStore: repos.training,
      training,
      prepare: parsePool.prepare,
      prepareBulk: createBatchingPrepare(parsePool),
      spoolDir,
    }),
    /** Upload admission: spool budget and per-account backlog on arrival, then fair slots to parse and store. */
    uploads: createUploadAdmission({
      slots: config.maxConcurrentUploads,
      slotsPerAccount: config.uploadsPerAccount,
      backlogPerAccount: config.uploadBacklogPerAccount,
      spoolMaxBytes: config.spoolMaxBytes,
      spoolDir,
      spoolReserveBytes: 2 * config.maxUploadBytes,
    }),
    mail,
    leads: createLeadsService({
      leads: repos.leads,
      chatLogs: repos.chatLogFeedback,
      mailFrom: config.mailFrom,
      onQueued: mail.worker.wake,
      onCreated: leadCreatedEmitter(webhooks.service),
    }),
    feedback: emitOnFeedback(createFeedbackService({ chatLogs: repos.chatLogFeedback }), {
      webhooks: webhooks.service,
      chatLogs: repos.chatLogFeedback,
    }),
    /** Signed webhooks per deployment (the worker runs under `serve`). */
    webhooks: webhooks.service,
    webhookWorker: webhooks.worker,
    /** Owner console sign-in: hashed session ids, idle and absolute timeouts, logins throttled per email+address. */
    sessions: createSessionsService({
      accounts: repos.accounts,
      sessions: repos.ownerSessions,
      attempts: repos.loginAttempts,
      idleMs: config.sessionIdleSeconds * 1000,
      maxMs: config.sessionMaxSeconds * 1000,
    }),
    reports: createReportsService({ reports: repos.reports }),
    /** The owner's reading of chat logs. */
    chatLogs: createChatLogsService({ chatLogs: repos.ownerChatLogs }),
    /** Conversation export: chat logs for a date range as JSON lines or CSV, a page at a time. */
    chatExport: createChatExportService({ store: repos.chatLogExport }),
    /** `corrections.findFor(deploymentId, question)` is what the chat pipeline asks before retrieval. */
    corrections,
    /** The answer backend (extractive, openai-compatible or local llama) behind its bounded queue. */
    llm,
    /** The answering pipeline: `chat.answer(request, signal)` streams sources, deltas and done. */
    chat,
    metrics,
    /** model servers' circuits (embeddings, rerank, chat model) */
    circuits,
    retriever: answers.retriever,
    /** The answering pipeline for the owner's own checks: records and charges nothing. */
    dryChat: answers.dry,
    /** issue 22: chat logs as conversations, content gaps, test questions, retention and erasure */
    conversations: createConversationsService({ logs: repos.conversationLogs, leads: repos.leads }),
    contentGaps: createContentGapsService({ logs: repos.conversationLogs, dry: answers.dry, corrections }),
    testQuestions,
    privacy,
    ownerJobs,
    /** the citation viewer: the owner's, and visitors' signed links to the cited page */
    citations: createCitationsService({ data: repos.visitorData, logs: repos.conversationLogs, documents: repos.documents }),
    /** search, fetch and ask for agents (MCP over HTTP and stdio), on the same pipeline as every answer */
    mcpTools: createMcpTools({
      chat,
      retriever: answers.retriever,
      neighbours: repos.neighbours,
      settings: { topK: config.topK, refusalThreshold: config.refusalThreshold, rerankThreshold: config.rerankThreshold },
    }),
    shutdownHooks: [] as (() => Promise<void> | void)[],
    /** Background work for `serve`: the training queue (and, as they land, the mail outbox). */
    async startWorkers() {
      await embedder().catch((e: unknown) => {
        if (!(e instanceof ModelServerUnavailableError)) throw e;
        log.warn("embeddings server unreachable at start; answers use keyword retrieval and training waits until it is back", {
          error: e.message,
        });
      });
      // Loaded now rather than on the first question: a broken reranker shows at start, and a GGUF one loads
      // node-llama-cpp before the server listens (see models/llama-runtime.ts).
      await reranker();
      training.start();
      services.shutdownHooks.push(() => training.stop());
      mail.start();
      services.shutdownHooks.push(() => mail.stop());
      ownerJobs.start();
      const unsubscribe = training.onChange(() => ownerJobs.wake());
      services.shutdownHooks.push(() => {
        unsubscribe();
        return ownerJobs.stop();
      });
      webhooks.worker.start();
      services.shutdownHooks.push(() => webhooks.worker.stop());
    },
    async close() {
      for (const hook of services.shutdownHooks.reverse()) await hook();
      await llm.close();
      await parsePool.close();
      const e = embedderPromise ? await embedderPromise.catch(() => null) : null;
      await e?.close?.();
      await (rerankerPromise ? await rerankerPromise : null)?.close?.();
      await store.close();
    },
  };
  return services;
}

export type Services = Awaited<ReturnType<typeof createServices>>;

/** Test and tooling convenience: services for a data dir with defaults. */
export function configFor(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({ env: { ...env, DOCCHAT_DATA: dataDir, DOCCHAT_LOG_LEVEL: env.DOCCHAT_LOG_LEVEL ?? "silent" } });
}
