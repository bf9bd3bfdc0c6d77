/**
 * Agents and automation (issue 21) as one contract on both engines: webhook endpoints and their delivery outbox
 * (idempotent by event id, leased so two nodes never deliver the same row at once), conversation export pages,
 * passages with their neighbours for MCP fetch, a deployment's description and an answer's citations.
 */
import { expect, test } from "bun:test";
import type { Citation, Store } from "../../../src/store/contract/index.ts";
import { describeStores } from "../../helpers/stores.ts";
import { seedOwner, turn, uniq } from "../../helpers/visitor-seed.ts";
import { chunk, document } from "./core-fixtures.ts";

const endpoint = (store: Store, deploymentId: string, events: string[], url = "https://hooks.example.com/docchat") =>
  store.repos.webhooks.createEndpoint({ id: uniq("whe"), deploymentId, url, secret: "whsec_c2VjcmV0", events, description: "" }, 1000);

describeStores("webhook endpoints and deliveries", (ctx) => {
  const hooks = () => ctx.store().repos.webhooks;

  test("endpoints are created, listed, patched and removed within their deployment only", async () => {
    const o = await seedOwner(ctx.store());
    const other = await seedOwner(ctx.store());
    const e = await endpoint(ctx.store(), o.deploymentId, ["lead.created"]);
    expect(e).toMatchObject({ deploymentId: o.deploymentId, events: ["lead.created"], enabled: true, createdAt: 1000 });
    expect(await hooks().findEndpoint(other.deploymentId, e.id)).toBeNull();
    expect(await hooks().updateEndpoint(other.deploymentId, e.id, { enabled: false })).toBeNull();
    const patched = await hooks().updateEndpoint(
      o.deploymentId,
      e.id,
      { enabled: false, events: ["answer.refused"], url: "https://x.example/h" },
      2000,
    );
    expect(patched).toMatchObject({ enabled: false, events: ["answer.refused"], url: "https://x.example/h", updatedAt: 2000 });
    expect((await hooks().listEndpoints(o.deploymentId)).map((x) => x.id)).toEqual([e.id]);
    expect(await hooks().removeEndpoint(other.deploymentId, e.id)).toBe(false);
    expect(await hooks().removeEndpoint(o.deploymentId, e.id)).toBe(true);
    expect(await hooks().listEndpoints(o.deploymentId)).toEqual([]);
  });

  test("an event is queued once per subscribed, enabled endpoint, and emitting it again queues nothing", async () => {
    const o = await seedOwner(ctx.store());
    const leads = await endpoint(ctx.store(), o.deploymentId, ["lead.created", "answer.refused"]);
    const refusals = await endpoint(ctx.store(), o.deploymentId, ["answer.refused"]);
    const off = await endpoint(ctx.store(), o.deploymentId, ["lead.created"]);
    await hooks().updateEndpoint(o.deploymentId, off.id, { enabled: false });
    const ev = { deploymentId: o.deploymentId, eventId: uniq("msg"), type: "lead.created", payload: '{"type":"lead.created"}' };
    expect(await hooks().enqueue(ev, 5000)).toBe(1);
    expect(await hooks().enqueue(ev, 5000)).toBe(0);
    expect(await hooks().enqueue({ ...ev, eventId: uniq("msg"), type: "answer.refused" }, 5000)).toBe(2);
    const test1 = { ...ev, eventId: uniq("msg"), type: "webhook.test", endpointId: refusals.id };
    expect(await hooks().enqueue(test1, 5000)).toBe(1);
    const all = await hooks().listDeliveries(o.deploymentId, { limit: 10 });
    expect(all.map((d) => [d.endpointId, d.eventType])).toEqual([
      [refusals.id, "webhook.test"],
      [refusals.id, "answer.refused"],
      [leads.id, "answer.refused"],
      [leads.id, "lead.created"],
    ]);
    expect((await hooks().listDeliveries(o.deploymentId, { endpointId: leads.id, limit: 1 })).map((d) => d.eventType)).toEqual([
      "answer.refused",
    ]);
    const older = await hooks().listDeliveries(o.deploymentId, { limit: 10, beforeId: all[1]?.id });
    expect(older.map((d) => d.id)).toEqual(all.slice(2).map((d) => d.id));
  });

  test("a claimed delivery is leased: no node takes it again until the lease ran out; retry, dead letter and redelivery", async () => {
    const o = await seedOwner(ctx.store());
    const e = await endpoint(ctx.store(), o.deploymentId, ["document.trained"]);
    const other = await ctx.node();
    const eventId = uniq("msg");
    await hooks().enqueue({ deploymentId: o.deploymentId, eventId, type: "document.trained", payload: "{}" }, 10_000);
    // other suites' rows may be due too: claim until this one comes up
    const claimMine = async (s: Store, now: number, until: number) => {
      for (;;) {
        const c = await s.repos.webhooks.claimNext(now, until);
        if (!c || c.eventId === eventId) return c;
        await s.repos.webhooks.markDelivered(c.id, 200, now);
      }
    };
    const c = await claimMine(ctx.store(), 10_000, 20_000);
    expect(c).toMatchObject({ eventId, url: e.url, secret: e.secret, attempts: 1, status: "sending" });
    expect(await claimMine(other, 19_999, 30_000)).toBeNull();
    const again = await claimMine(other, 20_000, 30_000);
    expect(again).toMatchObject({ id: c?.id, attempts: 2 });
    const id = c?.id as number;
    await other.repos.webhooks.markRetry(id, { nextAttemptAt: 40_000, httpStatus: 503, error: "HTTP 503", at: 21_000 });
    expect(await hooks().findDelivery(o.deploymentId, id)).toMatchObject({ status: "pending", lastStatus: 503, lastError: "HTTP 503" });
    expect(await claimMine(ctx.store(), 39_999, 50_000)).toBeNull();
    await hooks().markDead(id, { httpStatus: null, error: "connection refused", at: 41_000 });
    expect(await hooks().findDelivery(o.deploymentId, id)).toMatchObject({ status: "dead", lastStatus: null, lastAttemptAt: 41_000 });
    const stranger = await seedOwner(ctx.store());
    expect(await hooks().redeliver(stranger.deploymentId, id)).toBe(false);
    expect(await hooks().redeliver(o.deploymentId, id, 42_000)).toBe(true);
    const third = await claimMine(ctx.store(), 42_000, 50_000);
    expect(third).toMatchObject({ id, attempts: 1, eventId });
    await hooks().markDelivered(id, 204, 43_000);
    expect(await other.repos.webhooks.findDelivery(o.deploymentId, id)).toMatchObject({
      status: "delivered",
      lastStatus: 204,
      deliveredAt: 43_000,
    });
  });

  test("a disabled endpoint's deliveries wait until it is enabled again", async () => {
    const o = await seedOwner(ctx.store());
    const e = await endpoint(ctx.store(), o.deploymentId, ["balance.low"]);
    const eventId = uniq("msg");
    await hooks().enqueue({ deploymentId: o.deploymentId, eventId, type: "balance.low", payload: "{}" }, 1);
    await hooks().updateEndpoint(o.deploymentId, e.id, { enabled: false });
    const seen: string[] = [];
    for (let c = await hooks().claimNext(2, 3); c; c = await hooks().claimNext(2, 3)) {
      seen.push(c.eventId);
      await hooks().markDelivered(c.id, 200);
    }
    expect(seen).not.toContain(eventId);
    await hooks().updateEndpoint(o.deploymentId, e.id, { enabled: true });
    const c = await hooks().claimNext(2, 3);
    expect(c?.eventId).toBe(eventId);
  });
});

describeStores("conversation export pages", (ctx) => {
  test("pages walk a date range in time order with every field, and nothing of another deployment", async () => {
    const o = await seedOwner(ctx.store());
    const other = await seedOwner(ctx.store());
    const citations: Citation[] = [
      {
        chunkId: 7,
        documentId: "doc_1",
        source: "policy",
        headingPath: "Refunds",
        pageStart: 2,
        pageEnd: 3,
        rowStart: null,
        rowEnd: null,
        quote: "Refunds within 30 days.",
      },
    ];
    const ids: number[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          await ctx
            .store()
            .repos.chatLogs.record(
              turn({ ...o, question: `q${i}`, citations, visitorEmail: i === 2 ? "v@example.com" : null, refused: i === 3 }),
            )
        ).chatLogId,
      );
    await ctx.store().repos.chatLogs.record(turn({ ...other }));
    await ctx.store().repos.chatLogFeedback.rate(o.deploymentId, ids[1] as number, 0);
    const range = { from: 0, to: Date.now() + 1000 };
    const first = await ctx.store().repos.chatLogExport.page(o.deploymentId, { ...range, limit: 2 });
    expect(first.map((l) => l.question)).toEqual(["q0", "q1"]);
    const last = first.at(-1);
    const rest = await ctx.store().repos.chatLogExport.page(o.deploymentId, {
      ...range,
      limit: 10,
      after: { createdAt: last?.createdAt as number, id: last?.id as number },
    });
    expect(rest.map((l) => l.question)).toEqual(["q2", "q3", "q4"]);
    expect(first[1]).toMatchObject({ rating: 0, citations, sources: ["policy.pdf"], refused: false, searchQuery: "refund" });
    expect(rest[0]?.visitorEmail).toBe("v@example.com");
    expect(rest[1]?.refused).toBe(true);
    const none = await ctx.store().repos.chatLogExport.page(o.deploymentId, { from: range.to, to: range.to + 10, limit: 10 });
    expect(none).toEqual([]);
  });
});

describeStores("passages and deployment descriptions", (ctx) => {
  test("a passage comes with its neighbours in document order, and only within its deployment", async () => {
    const o = await seedOwner(ctx.store());
    const other = await seedOwner(ctx.store());
    const doc = await document(ctx.store(), o.deploymentId, { queue: false });
    const ids = await ctx.store().repos.chunkIndex.insert(
      o.deploymentId,
      doc.id,
      ["alpha", "bravo", "charlie", "delta", "echo"].map((t, i) => chunk(t, i)),
    );
    const around = await ctx.store().repos.neighbours.around(o.deploymentId, ids[2] as number, 1);
    expect(around.map((p) => p.text)).toEqual(["bravo", "charlie", "delta"]);
    expect(around[1]).toMatchObject({ chunkId: ids[2], documentId: doc.id, ord: 2, source: "doc" });
    expect((await ctx.store().repos.neighbours.around(o.deploymentId, ids[0] as number, 2)).map((p) => p.text)).toEqual([
      "alpha",
      "bravo",
      "charlie",
    ]);
    expect(await ctx.store().repos.neighbours.around(other.deploymentId, ids[2] as number, 1)).toEqual([]);
  });

  test("a deployment's description starts empty and is kept when patched", async () => {
    const o = await seedOwner(ctx.store());
    expect((await ctx.store().repos.deployments.findById(o.deploymentId))?.description).toBe("");
    await ctx.store().repos.deployments.update(o.deploymentId, { description: "Return policy and shipping." });
    expect((await (await ctx.node()).repos.deployments.findById(o.deploymentId))?.description).toBe("Return policy and shipping.");
  });
});
