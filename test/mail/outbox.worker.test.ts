import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/log.ts";
import { type Mailer, type MailMessage, newMessageId } from "../../src/mail/mailer.ts";
import { createOutboxWorker } from "../../src/mail/outbox.worker.ts";
import { retryDelayMs } from "../../src/shared/backoff.ts";
import type { OutboxStore } from "../../src/store/contract/index.ts";
import type { Engine } from "../helpers/index-drivers.ts";
import { describeEngines, openStore } from "../helpers/stores.ts";
import { waitUntil } from "../helpers/wait.ts";

/** A real, deterministic driver: fails the first `failures` sends, then accepts; records every attempt. */
function scriptedMailer(failures = 0, opts: { gate?: Promise<void> } = {}) {
  const attempts: MailMessage[] = [];
  let closed = false;
  const mailer: Mailer & { attempts: MailMessage[]; closed: () => boolean } = {
    kind: "smtp",
    description: "scripted",
    attempts,
    closed: () => closed,
    async send(m) {
      attempts.push(m);
      if (opts.gate) await opts.gate;
      if (attempts.length <= failures) throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ESOCKET" });
      return { messageId: m.messageId, via: "smtp" };
    },
    async close() {
      closed = true;
    },
  };
  return mailer;
}

const silent = createLogger("silent");
let opened: Awaited<ReturnType<typeof openStore>> | null = null;
let outbox: OutboxStore;
let engine: Engine = "sqlite";

/** A fresh, empty store of the engine under test. */
async function open() {
  opened = await openStore(engine);
  outbox = opened.store.repos.outbox;
}

const enqueue = (at = 0) =>
  outbox.enqueue(
    { leadId: null, messageId: newMessageId("docchat@example.com"), to: "owner@example.com", subject: "New lead", body: "hello" },
    at,
  );

const worker = (mailer: Mailer, clock: { t: number }, over: Partial<Parameters<typeof createOutboxWorker>[0]> = {}) =>
  createOutboxWorker({
    outbox,
    mailer,
    from: "docchat@example.com",
    log: silent,
    pollMs: 60_000,
    maxAttempts: 3,
    retryBaseMs: 1000,
    retryMaxMs: 10_000,
    sendTimeoutMs: 5000,
    now: () => clock.t,
    random: () => 1,
    ...over,
  });

/** A fresh store with one mail queued, and a worker at clock time `t` whose mailer fails its first `failures` sends. */
async function oneQueued(o: { t: number; failures?: number; maxAttempts?: number }) {
  await open();
  const id = await enqueue();
  const mailer = scriptedMailer(o.failures);
  const clock = { t: o.t };
  return { id, mailer, clock, w: worker(mailer, clock, o.maxAttempts === undefined ? {} : { maxAttempts: o.maxAttempts }) };
}

describeEngines("the mail outbox worker", (e) => {
  beforeAll(() => {
    engine = e;
  });
  afterEach(async () => {
    await opened?.dispose();
    opened = null;
  });

  test("sends a queued mail once under its stored Message-ID and marks it sent with the transport", async () => {
    const { id, mailer, w } = await oneQueued({ t: 10 });
    expect(await w.runOnce()).toBe(1);
    expect(await w.runOnce()).toBe(0);
    const row = await outbox.findById(id);
    expect(row?.status).toBe("sent");
    expect(row?.sentVia).toBe("smtp");
    expect(mailer.attempts.map((m) => m.messageId)).toEqual([row?.messageId as string]);
  });

  test("a mail the server accepted but the database could not mark sent is neither retried nor counted as failed", async () => {
    await open();
    const id = await enqueue();
    const mailer = scriptedMailer();
    const clock = { t: 10 };
    const w = worker(mailer, clock, { outbox: { ...outbox, markSent: () => Promise.reject(new Error("database away")) } });
    await expect(w.runOnce()).rejects.toThrow("database away");
    // still leased as being sent, no error recorded: not due again until the lease runs out
    expect(await outbox.findById(id)).toMatchObject({ status: "sending", attempts: 1, lastError: null });
    clock.t = 20;
    expect(await w.runOnce().catch(() => -1)).toBe(0);
    expect(mailer.attempts.length).toBe(1);
  });

  test("retries a failed send after an exponentially growing delay, with the same Message-ID", async () => {
    const { id, mailer, clock, w } = await oneQueued({ t: 0, failures: 2, maxAttempts: 5 });
    await w.runOnce();
    expect(await outbox.findById(id)).toMatchObject({ status: "pending", attempts: 1, nextAttemptAt: 1000 });
    expect(await w.runOnce()).toBe(0);
    clock.t = 1000;
    await w.runOnce();
    expect(await outbox.findById(id)).toMatchObject({ status: "pending", attempts: 2, nextAttemptAt: 3000 });
    clock.t = 3000;
    await w.runOnce();
    expect((await outbox.findById(id))?.status).toBe("sent");
    expect(new Set(mailer.attempts.map((m) => m.messageId)).size).toBe(1);
    expect((await outbox.findById(id))?.lastError).toBeNull();
  });

  test("dead-letters a mail after the configured number of attempts and leaves it alone", async () => {
    const { id, mailer, clock, w } = await oneQueued({ t: 0, failures: 100, maxAttempts: 3 });
    for (let i = 0; i < 5; i++) {
      await w.runOnce();
      clock.t += 100_000;
    }
    const row = await outbox.findById(id);
    expect(row?.status).toBe("dead");
    expect(row?.attempts).toBe(3);
    expect(row?.lastError).toContain("ECONNREFUSED");
    expect(mailer.attempts.length).toBe(3);
    expect(await outbox.retryDead(clock.t)).toBe(1);
    expect(await outbox.findById(id)).toMatchObject({ status: "pending", attempts: 0 });
  });

  test("a mail left mid-send by a crashed process is sent again once its lease has run out", async () => {
    await open();
    const id = await enqueue();
    const crashed = await outbox.claimNext(0, 11_000);
    expect(crashed?.status).toBe("sending");
    const mailer = scriptedMailer();
    const clock = { t: 5000 };
    const w = worker(mailer, clock);
    expect(await w.runOnce()).toBe(0);
    clock.t = 11_000;
    expect(await w.runOnce()).toBe(1);
    expect((await outbox.findById(id))?.status).toBe("sent");
    expect(mailer.attempts[0]?.messageId).toBe(crashed?.messageId as string);
  });

  test("two workers never take the same mail", async () => {
    await open();
    for (let i = 0; i < 10; i++) await enqueue();
    const a = scriptedMailer();
    const b = scriptedMailer();
    const clock = { t: 1 };
    await Promise.all([worker(a, clock).runOnce(), worker(b, clock).runOnce()]);
    const sent = [...a.attempts, ...b.attempts].map((m) => m.messageId);
    expect(sent.length).toBe(10);
    expect(new Set(sent).size).toBe(10);
  });

  test("a mail whose headers could never be sent safely is dead-lettered at once", async () => {
    await open();
    const id = await outbox.enqueue(
      { leadId: null, messageId: newMessageId("a@example.com"), to: "owner@example.com\r\nBcc: x@example.com", subject: "s", body: "b" },
      0,
    );
    const { createLogMailer } = await import("../../src/mail/log.mailer.ts");
    const w = worker(createLogMailer(silent), { t: 0 }, { maxAttempts: 10 });
    await w.runOnce();
    expect((await outbox.findById(id))?.status).toBe("dead");
  });

  test("once started, a wake-up delivers new mail without waiting for the poll interval, and stop closes the mailer", async () => {
    await open();
    const mailer = scriptedMailer();
    const w = worker(mailer, { t: 0 }, { now: Date.now, pollMs: 3_600_000 });
    w.start();
    const id = await enqueue(Date.now());
    w.wake();
    await waitUntil(async () => (await outbox.findById(id))?.status === "sent", "the woken worker to send");
    await w.stop();
    expect(mailer.closed()).toBe(true);
  });

  test("stop waits for the send in flight to finish and records its outcome", async () => {
    await open();
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const mailer = scriptedMailer(0, { gate });
    const w = worker(mailer, { t: 0 }, { now: Date.now, pollMs: 3_600_000 });
    const id = await enqueue(Date.now());
    w.start();
    await waitUntil(() => mailer.attempts.length === 1, "the send to begin");
    const stopped = w.stop();
    release();
    await stopped;
    expect((await outbox.findById(id))?.status).toBe("sent");
  });
});

describe("retry backoff", () => {
  test("doubles per attempt up to the cap, with jitter between half and the full delay", () => {
    const o = { baseMs: 1000, maxMs: 5000 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, o, () => 1))).toEqual([1000, 2000, 4000, 5000, 5000]);
    expect([1, 2, 3].map((n) => retryDelayMs(n, o, () => 0))).toEqual([500, 1000, 2000]);
  });
});
