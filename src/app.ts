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

/** Composition root: every dependency is built once here and passed in. */
export async function createServices(config: Config, opts: { log?: Logger } = {}) {
  const log = opts.log ?? createLogger(config.logLevel);
  const db = await openDatabase(config.dataDir);
  const repos = {
    accounts: createAccountsRepo(db),
    deployments: createDeploymentsRepo(db),
    keys: createKeysRepo(db),
  };
  const services = {
    version: VERSION,
    config,
    log,
    db: db as Db,
    repos,
    limiter: createRateLimiter() as RateLimiter,
    accounts: createAccountsService({ accounts: repos.accounts }),
    deployments: createDeploymentsService({ deployments: repos.deployments, keys: repos.keys }),
    shutdownHooks: [] as (() => Promise<void> | void)[],
    async close() {
      for (const hook of services.shutdownHooks.reverse()) await hook();
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
