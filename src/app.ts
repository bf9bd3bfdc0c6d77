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
import { isolatedParse } from "./ingest/isolated-parse.ts";
import type { Embedder } from "./rag/embedder.ts";
import { createEmbedder } from "./rag/embedders/create-embedder.ts";
import { createChunkIndexRepo } from "./store/repos/chunk-index.repo.ts";
import { createDocumentsRepo } from "./store/repos/documents.repo.ts";

/** Composition root: every dependency is built once here and passed in. */
export async function createServices(config: Config, opts: { log?: Logger } = {}) {
  const log = opts.log ?? createLogger(config.logLevel);
  const db = await openDatabase(config.dataDir);
  const repos = {
    accounts: createAccountsRepo(db),
    deployments: createDeploymentsRepo(db),
    keys: createKeysRepo(db),
    documents: createDocumentsRepo(db),
    chunkIndex: createChunkIndexRepo(db),
  };
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
  const parse = (bytes: Uint8Array, o: { filename?: string }) =>
    isolatedParse(bytes, { filename: o.filename, maxPages: config.maxPages, maxInflatedBytes: config.maxUploadBytes * 20 }, { timeoutMs: config.parseTimeoutMs, memoryLimitMb: config.parseMemoryMb });
  const services = {
    version: VERSION,
    config,
    log,
    db: db as Db,
    repos,
    limiter: createRateLimiter() as RateLimiter,
    accounts: createAccountsService({ accounts: repos.accounts }),
    deployments: createDeploymentsService({ deployments: repos.deployments, keys: repos.keys }),
    embedder,
    training,
    documents: createDocumentsService({ db, config, documents: repos.documents, deployments: repos.deployments, index: repos.chunkIndex, training, parse }),
    shutdownHooks: [] as (() => Promise<void> | void)[],
    /** Background work for `serve`: the training queue (and, as they land, the mail outbox). */
    async startWorkers() {
      await embedder();
      training.start();
      services.shutdownHooks.push(() => training.stop());
    },
    async close() {
      for (const hook of services.shutdownHooks.reverse()) await hook();
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
