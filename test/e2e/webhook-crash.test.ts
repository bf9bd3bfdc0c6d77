/**
 * Webhooks across a kill -9: leads acknowledged by the real `docchat serve` (a child process) are each delivered to
 * the receiver after the server is killed in the middle of delivering them and started again — nothing lost, every
 * delivery signed, duplicates only under the same webhook-id.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { configFor, createServices, type Services } from "../../src/app.ts";
import { insertChatLog } from "../helpers/chat-logs.ts";
import { startServeProcess } from "../helpers/serve-process.ts";
import { tempDir } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

const spawnServe = (dataDir: string, env: Record<string, string>) =>
  startServeProcess({ command: [process.execPath, join(import.meta.dir, "../../src/main.ts")], dataDir, env });

let dir: string;
let receiver: Receiver;
let s: Services;
let key: string;
let deploymentId: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = tempDir();
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
  s = await createServices(configFor(dir, env));
  const account = await s.accounts.create({ email: "hooks-owner@example.com" });
  const created = await s.deployments.create({ accountId: account.id, name: "Crash Hooks", published: true });
  await s.deployments.update(created.deployment.id, { handoffEnabled: true });
  key = created.apiKey;
  deploymentId = created.deployment.id;
  const endpoint = await s.webhooks.createEndpoint(deploymentId, { url: receiver.url, events: ["lead.created"] });
  receiver.secret = endpoint.secret;
});
afterAll(async () => {
  await s.close();
  await receiver.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("webhooks across a kill -9", () => {
  test("leads acknowledged before a kill -9 in the middle of their delivery all reach the receiver after the restart", async () => {
    const first = await spawnServe(dir, env);
    receiver.mode = "hang";
    const leadIds: number[] = [];
    for (let i = 0; i < 8; i++) {
      const refused = await insertChatLog(s, { deploymentId, refused: true, question: `Question ${i} nobody could answer?` });
      const r = await fetch(`${first.url}/api/v1/widget/handoff`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ email: `visitor${i}@example.org`, conversation_id: refused.conversationId }),
      });
      expect(r.status).toBe(200);
      leadIds.push(((await r.json()) as { lead_id: number }).lead_id);
    }
    // deliveries are in flight (the receiver holds them) when the server dies
    await waitUntil(() => receiver.attempts.length >= 2, "deliveries in flight");
    first.proc.kill(9);
    await first.proc.exited;
    const states = (await s.repos.webhooks.listDeliveries(deploymentId, { limit: 100 })).map((d) => d.status);
    expect(states.length).toBe(8);
    expect(states.filter((x) => x === "delivered").length).toBeLessThan(8);

    receiver.mode = "ok";
    const second = await spawnServe(dir, env);
    try {
      const expected = leadIds.map((id) => `msg_lead_${id}`).sort();
      await waitUntil(() => expected.every((id) => receiver.unique().has(id)), "every lead's event after the restart", 30_000);
      await waitUntil(
        async () => (await s.repos.webhooks.listDeliveries(deploymentId, { limit: 100 })).every((d) => d.status === "delivered"),
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
