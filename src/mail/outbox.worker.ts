import type { Logger } from "../log.ts";
import { retryDelayMs } from "../shared/backoff.ts";
import { createOutboxLoop } from "../shared/outbox-loop.ts";
import type { OutboxMail, OutboxStore } from "../store/contract/index.ts";
import { type Mailer, UnsafeMailError } from "./mailer.ts";

export interface OutboxWorkerOptions {
  outbox: OutboxStore;
  mailer: Mailer;
  from: string;
  log: Logger;
  pollMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  sendTimeoutMs: number;
  now?: () => number;
  random?: () => number;
}

const describe = (e: unknown): string => {
  const err = e as { code?: unknown; responseCode?: unknown; message?: unknown };
  const parts = [err?.code, err?.responseCode, err?.message ?? String(e)].filter((p) => p !== undefined && p !== null && p !== "");
  return parts.join(" ").slice(0, 500);
};

/**
 * Delivers the mail outbox one row at a time: claim (lease) → send → mark sent, or schedule a retry with
 * backoff, or dead-letter after `maxAttempts`. A row is only ever marked sent after the server accepted it,
 * so nothing is lost; a crash between acceptance and the mark costs one duplicate, with the same Message-ID.
 */
export function createOutboxWorker(o: OutboxWorkerOptions) {
  const now = o.now ?? Date.now;

  async function deliver(mail: OutboxMail): Promise<void> {
    let via: string;
    try {
      via = (await o.mailer.send({ messageId: mail.messageId, from: o.from, to: mail.to, subject: mail.subject, text: mail.body })).via;
    } catch (e) {
      const error = describe(e);
      if (e instanceof UnsafeMailError || mail.attempts >= o.maxAttempts) {
        await o.outbox.markDead(mail.id, error);
        o.log.error("mail dead-lettered", { outboxId: mail.id, leadId: mail.leadId, attempts: mail.attempts, error });
      } else {
        const delay = retryDelayMs(mail.attempts, { baseMs: o.retryBaseMs, maxMs: o.retryMaxMs }, o.random);
        await o.outbox.markRetry(mail.id, now() + delay, error);
        o.log.warn("mail delivery failed; will retry", { outboxId: mail.id, attempt: mail.attempts, retryInMs: delay, error });
      }
      return;
    }
    // The server accepted it. Failing to record that (the database away) is not a failed delivery: no retry now,
    // no attempt counted; the row stays leased and is sent again only after its lease, like after a crash.
    await o.outbox.markSent(mail.id, via, now());
    o.log.debug("mail sent", { outboxId: mail.id, messageId: mail.messageId, via, attempt: mail.attempts });
  }

  const loop = createOutboxLoop({
    claimNext: (at, leaseUntil) => o.outbox.claimNext(at, leaseUntil),
    deliver,
    attemptMs: o.sendTimeoutMs,
    lanes: 1,
    pollMs: o.pollMs,
    now,
    onError: (e) => o.log.error("mail outbox worker error", { error: describe(e) }),
  });

  return {
    start: loop.start,
    /** New mail was queued: deliver now instead of at the next poll. */
    wake: loop.wake,
    /** Finishes the send in flight (bounded by the send timeout), then closes the mailer. */
    async stop(): Promise<void> {
      await loop.stop();
      await o.mailer.close();
    },
    /** One pass over the due rows without the background loop (tests and tools). */
    runOnce: loop.runOnce,
  };
}

export type OutboxWorker = ReturnType<typeof createOutboxWorker>;
