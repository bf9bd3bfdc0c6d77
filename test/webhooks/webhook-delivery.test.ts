/**
 * The webhook outbox worker on both engines against a real receiver on 127.0.0.1: every delivery signed the
 * Standard Webhooks way and verified by the receiver's own code; a receiver that is down, then up, gets every
 * event after retries (once per idempotency id); a receiver that hangs or sends an endless body is cut off; an
 * address that is not public is refused at delivery time; two nodes never deliver the same event twice at once.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createLogger } from "../../src/log.ts";
import type { Store } from "../../src/store/contract/index.ts";
import { eventBody } from "../../src/webhooks/webhook-events.ts";
import { newWebhookSecret } from "../../src/webhooks/webhook-signature.ts";
import { createWebhookWorker } from "../../src/webhooks/webhooks.worker.ts";
import { describeStores } from "../helpers/stores.ts";
import { seedOwner, uniq } from "../helpers/visitor-seed.ts";
import { waitUntil } from "../helpers/wait.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver({ secret: newWebhookSecret() });
});
afterAll(() => receiver.stop());

const worker = (store: Store, o: { allowPrivate?: boolean; timeoutMs?: number; maxAttempts?: number } = {}) =>
  createWebhookWorker({
    store: store.repos.webhooks,
    log: createLogger("silent"),
    pollMs: 20,
    maxAttempts: o.maxAttempts ?? 20,
    retryBaseMs: 10,
    retryMaxMs: 50,
    timeoutMs: o.timeoutMs ?? 5000,
    allowPrivate: o.allowPrivate ?? true,
    userAgent: "docchat-test",
  });

describeStores("webhook delivery", (ctx) => {
  /** A deployment with one endpoint at the receiver (written directly: the service refuses loopback by default). */
  async function endpointAt(url = receiver.url, events = ["answer.refused"]) {
    const o = await seedOwner(ctx.store());
    const e = await ctx.store().repos.webhooks.createEndpoint({
      id: uniq("whe"),
      deploymentId: o.deploymentId,
      url,
      secret: receiver.secret,
      events,
      description: "",
    });
    return { ...o, endpoint: e };
  }
  const emit = (deploymentId: string, n: number) =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const eventId = uniq(`msg_${i}`);
        await ctx.store().repos.webhooks.enqueue({
          deploymentId,
          eventId,
          type: "answer.refused",
          payload: eventBody("answer.refused", { deployment_id: deploymentId, chat_log_id: i }, Date.now()),
        });
        return eventId;
      }),
    );
  const deliveries = (deploymentId: string) => ctx.store().repos.webhooks.listDeliveries(deploymentId, { limit: 100 });

  test("each delivery is signed (webhook-id, webhook-timestamp, v1 HMAC) and verified by the receiver", async () => {
    receiver.mode = "ok";
    const o = await endpointAt();
    const ids = await emit(o.deploymentId, 3);
    const w = worker(ctx.store());
    await w.runOnce();
    const got = receiver.attempts.filter((a) => ids.includes(a.id));
    expect(got.length).toBe(3);
    expect(got.every((a) => a.signatureValid && a.type === "answer.refused" && a.data.deployment_id === o.deploymentId)).toBe(true);
    expect((await deliveries(o.deploymentId)).map((d) => [d.status, d.lastStatus, d.attempts])).toEqual([
      ["delivered", 204, 1],
      ["delivered", 204, 1],
      ["delivered", 204, 1],
    ]);
  });

  test("a receiver that is down, then failing, then up gets every event exactly once by id after retries", async () => {
    const o = await endpointAt();
    const ids = await emit(o.deploymentId, 5);
    receiver.down();
    const w = worker(ctx.store());
    w.start();
    try {
      await waitUntil(async () => (await deliveries(o.deploymentId)).every((d) => d.attempts >= 2), "two refused attempts each");
      receiver.up();
      receiver.mode = 503;
      await waitUntil(() => receiver.attempts.filter((a) => ids.includes(a.id)).length >= 5, "503s while failing");
      receiver.mode = "ok";
      await waitUntil(async () => (await deliveries(o.deploymentId)).every((d) => d.status === "delivered"), "all delivered");
    } finally {
      await w.stop();
    }
    const mine = receiver.attempts.filter((a) => ids.includes(a.id));
    const unique = new Set(mine.map((a) => a.id));
    expect([...unique].sort()).toEqual([...ids].sort());
    expect(mine.every((a) => a.signatureValid)).toBe(true);
    // a retry carries the same webhook-id and body, signed afresh
    const first = mine.find((a) => a.id === ids[0]);
    expect(mine.filter((a) => a.id === ids[0]).every((a) => a.body === first?.body)).toBe(true);
    const log = await deliveries(o.deploymentId);
    expect(log.every((d) => d.attempts >= 3 && d.lastStatus === 204 && d.lastError === null)).toBe(true);
  });

  test("a receiver that never answers is cut off at the timeout, and one that streams forever is not read to its end", async () => {
    const o = await endpointAt();
    const [hung] = await emit(o.deploymentId, 1);
    receiver.mode = "hang";
    const w = worker(ctx.store(), { timeoutMs: 300, maxAttempts: 1 });
    const started = Date.now();
    await w.runOnce();
    const d = (await deliveries(o.deploymentId)).find((x) => x.eventId === hung);
    expect(d).toMatchObject({ status: "dead", lastStatus: null });
    expect(d?.lastError).toContain("no answer within 300 ms");
    expect(Date.now() - started).toBeLessThan(10_000);
    receiver.mode = "huge";
    const [big] = await emit(o.deploymentId, 1);
    await worker(ctx.store(), { timeoutMs: 5000 }).runOnce();
    expect((await deliveries(o.deploymentId)).find((x) => x.eventId === big)).toMatchObject({ status: "delivered", lastStatus: 200 });
    receiver.mode = "ok";
  });

  test("an endpoint that leads to a private address is refused at delivery time unless the operator allows it", async () => {
    const o = await endpointAt(receiver.url.replace("127.0.0.1", "localhost"));
    const [id] = await emit(o.deploymentId, 1);
    await worker(ctx.store(), { allowPrivate: false }).runOnce();
    const d = (await deliveries(o.deploymentId)).find((x) => x.eventId === id);
    expect(d?.status).toBe("dead");
    expect(d?.lastError).toContain("public address");
    expect(receiver.attempts.some((a) => a.id === id)).toBe(false);
  });

  test("workers on two nodes deliver every event once", async () => {
    receiver.mode = "ok";
    const o = await endpointAt();
    const ids = await emit(o.deploymentId, 20);
    const other = await ctx.node();
    const counts = await Promise.all([worker(ctx.store()).runOnce(), worker(other).runOnce(), worker(other).runOnce()]);
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(20);
    await waitUntil(async () => (await deliveries(o.deploymentId)).every((d) => d.status === "delivered"), "all delivered");
    const mine = receiver.attempts.filter((a) => ids.includes(a.id));
    expect(mine.length).toBe(20);
    expect(new Set(mine.map((a) => a.id)).size).toBe(20);
  });
});
