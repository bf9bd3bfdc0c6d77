/**
 * The mail outbox worker over the store contract, on both engines (issue 12): workers on two nodes of one
 * database deliver every queued mail to a real SMTP sink exactly once, and a mail a dead node left mid-send goes
 * out again, under the same Message-ID, from the other node once the lease has run out — never before.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createLogger } from "../../../src/log.ts";
import { newMessageId } from "../../../src/mail/mailer.ts";
import { createOutboxWorker } from "../../../src/mail/outbox.worker.ts";
import { createSmtpMailer } from "../../../src/mail/smtp.mailer.ts";
import type { Store } from "../../../src/store/contract/index.ts";
import { countByMessageId, type SmtpSink, startSmtpSink } from "../../helpers/smtp-sink.ts";
import { describeStores } from "../../helpers/stores.ts";
import { waitUntil } from "../../helpers/wait.ts";

let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(() => sink.stop());

const SEND_TIMEOUT_MS = 5000;
const worker = (store: Store, clock: () => number) =>
  createOutboxWorker({
    outbox: store.repos.outbox,
    mailer: createSmtpMailer({ url: sink.url, timeoutMs: SEND_TIMEOUT_MS }),
    from: "docchat@example.com",
    log: createLogger("silent"),
    pollMs: 60_000,
    maxAttempts: 3,
    retryBaseMs: 1000,
    retryMaxMs: 10_000,
    sendTimeoutMs: SEND_TIMEOUT_MS,
    now: clock,
  });

describeStores("the mail outbox worker on a shared store", (ctx) => {
  const enqueue = (store: Store, at: number) =>
    store.repos.outbox.enqueue(
      { leadId: null, messageId: newMessageId("docchat@example.com"), to: "owner@example.com", subject: "New lead", body: "hello" },
      at,
    );

  test("workers on two nodes deliver every queued mail exactly once", async () => {
    const other = await ctx.node();
    const ids = [];
    for (let i = 0; i < 24; i++) ids.push(await enqueue(i % 2 ? other : ctx.store(), 1000));
    const messageIds = new Set(
      await Promise.all(ids.map(async (id) => (await ctx.store().repos.outbox.findById(id))?.messageId as string)),
    );
    const workers = [
      worker(ctx.store(), () => 2000),
      worker(other, () => 2000),
      worker(ctx.store(), () => 2000),
      worker(other, () => 2000),
    ];
    const attempted = await Promise.all(workers.map((w) => w.runOnce()));
    expect(attempted.reduce((a, b) => a + b, 0)).toBe(24);
    await waitUntil(
      () => [...countByMessageId(sink.messages).keys()].filter((m) => messageIds.has(m)).length === 24,
      "all 24 mails at the sink",
    );
    const counts = countByMessageId(sink.messages.filter((m) => messageIds.has(m.messageId)));
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    for (const id of ids) expect((await other.repos.outbox.findById(id))?.status).toBe("sent");
    for (const w of workers) await w.stop();
  });

  test("a mail left mid-send by a dead node goes out from another node once its lease has run out, not before", async () => {
    const other = await ctx.node();
    const id = await enqueue(ctx.store(), 10_000);
    const leaseMs = SEND_TIMEOUT_MS * 2 + 1000;
    // the dead node claimed it at 10 000 and never reported back
    const crashed = await ctx.store().repos.outbox.claimNext(10_000, 10_000 + leaseMs);
    expect(crashed?.status).toBe("sending");
    let t = 10_000 + leaseMs - 1;
    const survivor = worker(other, () => t);
    expect(await survivor.runOnce()).toBe(0);
    t = 10_000 + leaseMs;
    expect(await survivor.runOnce()).toBe(1);
    expect(await ctx.store().repos.outbox.findById(id)).toMatchObject({ status: "sent", attempts: 2, sentVia: "smtp" });
    await waitUntil(() => sink.messages.some((m) => m.messageId === crashed?.messageId), "the resent mail at the sink");
    await survivor.stop();
  });
});
