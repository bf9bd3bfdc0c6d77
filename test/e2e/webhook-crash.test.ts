/**
 * Webhooks across a kill -9: leads acknowledged by the real `docchat serve` (a child process) are each delivered to
 * the receiver after the server is killed in the middle of delivering them and started again — nothing lost, every
 * delivery signed, duplicates only under the same webhook-id.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type HandoffShop, refusedQuestion, seedHandoffShop, spawnServe, widgetHandoff } from "../helpers/handoff-shop.ts";
import { waitUntil } from "../helpers/wait.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

let receiver: Receiver;
let shop: HandoffShop;
let env: Record<string, string>;

beforeAll(async () => {
  receiver = await startReceiver();
  env = {
    DOCCHAT_EMBEDDER: "none",
    DOCCHAT_WEBHOOK_ALLOW_PRIVATE: "true",
    DOCCHAT_WEBHOOK_POLL_MS: "20",
    DOCCHAT_WEBHOOK_RETRY_BASE_MS: "20",
    DOCCHAT_WEBHOOK_RETRY_MAX_MS: "100",
    DOCCHAT_WEBHOOK_MAX_ATTEMPTS: "1000",
    DOCCHAT_WEBHOOK_TIMEOUT_MS: "1000",
  };
  // This process only seeds and reads the database; it never runs the webhook worker.
  shop = await seedHandoffShop({ env, owner: "hooks-owner@example.com", name: "Crash Hooks" });
  const endpoint = await shop.s.webhooks.createEndpoint(shop.deploymentId, { url: receiver.url, events: ["lead.created"] });
  receiver.secret = endpoint.secret;
});
afterAll(async () => {
  await shop.close();
  await receiver.stop();
});

describe("webhooks across a kill -9", () => {
  test("leads acknowledged before a kill -9 in the middle of their delivery all reach the receiver after the restart", async () => {
    const first = await spawnServe(shop.dir, env);
    receiver.mode = "hang";
    const leadIds: number[] = [];
    for (let i = 0; i < 8; i++) {
      const conversationId = await refusedQuestion(shop, `Question ${i} nobody could answer?`);
      const r = await widgetHandoff(shop, { url: first.url, conversationId, email: `visitor${i}@example.org` });
      expect(r.status).toBe(200);
      leadIds.push(((await r.json()) as { lead_id: number }).lead_id);
    }
    // deliveries are in flight (the receiver holds them) when the server dies
    await waitUntil(() => receiver.attempts.length >= 2, "deliveries in flight");
    first.proc.kill(9);
    await first.proc.exited;
    const states = (await shop.s.repos.webhooks.listDeliveries(shop.deploymentId, { limit: 100 })).map((d) => d.status);
    expect(states.length).toBe(8);
    expect(states.filter((x) => x === "delivered").length).toBeLessThan(8);

    receiver.mode = "ok";
    const second = await spawnServe(shop.dir, env);
    try {
      const expected = leadIds.map((id) => `msg_lead_${id}`).sort();
      await waitUntil(() => expected.every((id) => receiver.unique().has(id)), "every lead's event after the restart", 30_000);
      await waitUntil(
        async () => (await shop.s.repos.webhooks.listDeliveries(shop.deploymentId, { limit: 100 })).every((d) => d.status === "delivered"),
        "all marked delivered",
      );
      expect([...receiver.unique().keys()].sort()).toEqual(expected);
      expect(receiver.attempts.every((a) => a.signatureValid && a.type === "lead.created")).toBe(true);
      expect(new Set(receiver.attempts.map((a) => (a.data.lead as { email: string }).email)).size).toBe(8);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, 90_000);
});
