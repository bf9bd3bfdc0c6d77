import type { Logger } from "../log.ts";
import { retryDelayMs } from "../shared/backoff.ts";
import { createOutboxLoop } from "../shared/outbox-loop.ts";
import type { ClaimedDelivery, WebhooksStore } from "../store/contract/index.ts";
import { DeliveryFailure, postWebhook } from "./webhook-sender.ts";
import { webhookHeaders } from "./webhook-signature.ts";

export interface WebhookWorkerOptions {
  store: WebhooksStore;
  log: Logger;
  pollMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  timeoutMs: number;
  allowPrivate: boolean;
  /** deliveries in flight at once (one slow receiver does not hold up the others) */
  concurrency?: number;
  maxResponseBytes?: number;
  userAgent: string;
  now?: () => number;
  random?: () => number;
}

/**
 * Delivers the webhook outbox like the mail outbox: claim (lease) → POST → mark delivered, or schedule a retry
 * with backoff, or dead-letter after `maxAttempts`. A delivery is only marked delivered after the receiver
 * answered 2xx, so nothing is lost; a crash between that answer and the mark costs one duplicate under the same
 * webhook-id, which receivers deduplicate on.
 */
export function createWebhookWorker(o: WebhookWorkerOptions) {
  const now = o.now ?? Date.now;

  async function deliver(d: ClaimedDelivery, at: number): Promise<void> {
    const headers = webhookHeaders({ secret: d.secret, id: d.eventId, timestamp: Math.floor(at / 1000), body: d.payload });
    try {
      const { status } = await postWebhook({
        url: d.url,
        headers: { ...headers, "user-agent": o.userAgent },
        body: d.payload,
        timeoutMs: o.timeoutMs,
        maxResponseBytes: o.maxResponseBytes ?? 64 * 1024,
        allowPrivate: o.allowPrivate,
      });
      // Failing to record it (the database away) is not a failed delivery: the lease runs out and it goes again.
      await o.store.markDelivered(d.id, status, now());
      o.log.debug("webhook delivered", { deliveryId: d.id, eventId: d.eventId, type: d.eventType, status, attempt: d.attempts });
    } catch (e) {
      const f = e instanceof DeliveryFailure ? e : new DeliveryFailure(String((e as Error)?.message ?? e), null);
      const fields = { deliveryId: d.id, eventId: d.eventId, type: d.eventType, attempt: d.attempts, status: f.status, error: f.message };
      if (f.permanent || d.attempts >= o.maxAttempts) {
        await o.store.markDead(d.id, { httpStatus: f.status, error: f.message, at: now() });
        o.log.warn("webhook dead-lettered", fields);
      } else {
        const delay = retryDelayMs(d.attempts, { baseMs: o.retryBaseMs, maxMs: o.retryMaxMs }, o.random);
        await o.store.markRetry(d.id, { nextAttemptAt: now() + delay, httpStatus: f.status, error: f.message, at: now() });
        o.log.info("webhook delivery failed; will retry", { ...fields, retryInMs: delay });
      }
    }
  }

  const loop = createOutboxLoop({
    claimNext: (at, leaseUntil) => o.store.claimNext(at, leaseUntil),
    deliver,
    attemptMs: o.timeoutMs,
    lanes: o.concurrency ?? 4,
    pollMs: o.pollMs,
    now,
    onError: (e) => o.log.error("webhook worker error", { error: String((e as Error)?.message ?? e) }),
  });

  return {
    start: loop.start,
    /** An event was queued: deliver now instead of at the next poll. */
    wake: loop.wake,
    /** Finishes the deliveries in flight (each bounded by the timeout). */
    stop: loop.stop,
    /** One pass over the due rows without the background loop (tests and tools). */
    runOnce: loop.runOnce,
  };
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;
