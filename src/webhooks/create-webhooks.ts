import type { Config } from "../config/index.ts";
import type { Logger } from "../log.ts";
import type { WebhooksStore } from "../store/contract/index.ts";
import { createWebhooksService } from "./webhooks.service.ts";
import { createWebhookWorker } from "./webhooks.worker.ts";

/** The webhooks service and its outbox worker from config; a queued event wakes the worker at once. */
export function createWebhooks(deps: { config: Config; log: Logger; store: WebhooksStore; version: string }) {
  const { config, log } = deps;
  const worker = createWebhookWorker({
    store: deps.store,
    log,
    pollMs: config.webhookPollMs,
    maxAttempts: config.webhookMaxAttempts,
    retryBaseMs: config.webhookRetryBaseMs,
    retryMaxMs: config.webhookRetryMaxMs,
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivate,
    userAgent: `docchat-webhooks/${deps.version}`,
  });
  const service = createWebhooksService({ store: deps.store, allowPrivate: config.webhookAllowPrivate, log, onQueued: worker.wake });
  return { service, worker };
}
