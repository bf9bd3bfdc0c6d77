import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ChatWorld, FIXTURES, openaiClient, postJson, seedWithDocs, startChatWorld } from "../chat/chat-kit.ts";
import { startTestServer } from "../helpers/server.ts";
import { describeEngines } from "../helpers/stores.ts";

describeEngines("metrics", (engine) => {
  const TOKEN = "metrics-token-0123456789";
  let world: ChatWorld;
  let seeded: Awaited<ReturnType<typeof seedWithDocs>>;

  beforeAll(async () => {
    world = await startChatWorld({ upstream: true, env: { DOCCHAT_METRICS_TOKEN: TOKEN, DOCCHAT_LLM_CONCURRENCY: "1" }, engine });
    seeded = await seedWithDocs(world.server);
  }, 60_000);
  afterAll(() => world.stop());

  async function scrape(): Promise<string> {
    const r = await fetch(`${world.server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/plain");
    return r.text();
  }

  /** The value of one sample, e.g. value(text, 'docchat_answers_total{outcome="refused"}'); 0 when absent. */
  function value(text: string, sample: string): number {
    const line = text.split("\n").find((l) => l.startsWith(`${sample} `));
    return line ? Number(line.slice(sample.length + 1)) : 0;
  }

  describe("GET /metrics", () => {
    test("a scrape without the token, or with a wrong one, is refused with 401", async () => {
      const none = await fetch(`${world.server.url}/metrics`);
      expect(none.status).toBe(401);
      expect(((await none.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
      const wrong = await fetch(`${world.server.url}/metrics`, { headers: { authorization: "Bearer metrics-token-wrong-000000" } });
      expect(wrong.status).toBe(401);
      // The deployment's API key is no metrics token either.
      const key = await fetch(`${world.server.url}/metrics`, { headers: { authorization: `Bearer ${seeded.apiKey}` } });
      expect(key.status).toBe(401);
    });

    test("without DOCCHAT_METRICS_TOKEN the endpoint does not exist", async () => {
      const server = await startTestServer({}, { engine });
      try {
        expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
      } finally {
        await server.stop();
      }
    });

    test("request counts and latency by route and status move after real requests", async () => {
      const before = await scrape();
      const models = 'docchat_http_requests_total{route="/api/v1/models",method="GET",status="200"}';
      const bad = 'docchat_http_requests_total{route="/api/v1/models",method="GET",status="401"}';
      await openaiClient(world.server, seeded.apiKey).models.list();
      await openaiClient(world.server, seeded.apiKey).models.list();
      await fetch(`${world.server.url}/api/v1/models`, { headers: { authorization: "Bearer nope" } });
      await fetch(`${world.server.url}/api/v1/documents/some-id-1`, { headers: { authorization: `Bearer ${seeded.apiKey}` } });
      const after = await scrape();
      expect(value(after, models) - value(before, models)).toBe(2);
      expect(value(after, bad) - value(before, bad)).toBe(1);
      const count = 'docchat_http_request_duration_seconds_count{route="/api/v1/models",method="GET",status="200"}';
      expect(value(after, count) - value(before, count)).toBe(2);
      // Paths with ids are counted under their route pattern, not one series per id.
      expect(after).not.toContain("some-id-1");
    });

    test("answers are counted by outcome and the tokens debited match the balance", async () => {
      world.upstream!.setMode({ kind: "reply" });
      const before = await scrape();
      const balance = async () => (await world.server.services.repos.accounts.findById(seeded.accountId))?.tokens ?? 0;
      const startBalance = await balance();
      const answered = await openaiClient(world.server, seeded.apiKey).chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "Can annual plans be refunded?" }],
      });
      await openaiClient(world.server, seeded.apiKey).responses.create({ model: "m", input: "Who wrote Hamlet?" });
      world.upstream!.setMode({ kind: "fail", status: 500 });
      const failed = await postJson(world.server, "/api/v1/chat/completions", seeded.apiKey, {
        model: "m",
        messages: [{ role: "user", content: "Can annual plans be refunded?" }],
      });
      expect(failed.status).toBe(503);
      world.upstream!.setMode({ kind: "reply" });
      // An owner-written correction is served instead of an answer.
      const chatLogId = (answered as unknown as { chat_log_id: number }).chat_log_id;
      await postJson(world.server, "/api/v1/widget/feedback", seeded.apiKey, { chat_log_id: chatLogId, feedback: 0 });
      await world.server.services.corrections.set(chatLogId, "Yes, within 30 days.", { deploymentId: seeded.deploymentId });
      const corrected = await postJson(world.server, "/api/v1/chat/completions", seeded.apiKey, {
        model: "m",
        messages: [{ role: "user", content: "Can annual plans be refunded?" }],
      });
      expect(((await corrected.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe(
        "Yes, within 30 days.",
      );

      const after = await scrape();
      const delta = (s: string) => value(after, s) - value(before, s);
      expect(delta('docchat_answers_total{outcome="answered"}')).toBe(1);
      expect(delta('docchat_answers_total{outcome="refused"}')).toBe(1);
      expect(delta('docchat_answers_total{outcome="error"}')).toBe(1);
      expect(delta('docchat_answers_total{outcome="correction"}')).toBe(1);
      expect(delta("docchat_tokens_debited_total")).toBe(startBalance - (await balance()));
      expect(delta("docchat_tokens_debited_total")).toBeGreaterThan(0);
      // Every answer that reached the model went through its queue.
      expect(delta("docchat_model_queue_wait_seconds_count")).toBeGreaterThanOrEqual(2);
      expect(value(after, "docchat_model_queue_depth")).toBe(0);
    });

    test("an answer waiting for the model's only slot shows in the model queue depth", async () => {
      world.upstream!.setMode({ kind: "slow", delayMs: 20, tokens: 100 });
      const abort = new AbortController();
      const ask = () =>
        fetch(`${world.server.url}/api/v1/chat/completions`, {
          method: "POST",
          signal: abort.signal,
          headers: { authorization: `Bearer ${seeded.apiKey}`, "content-type": "application/json" },
          // Not the question corrected above: a correction never reaches the model.
          body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "How much does the Pro plan cost?" }] }),
        }).catch(() => null);
      const first = ask();
      let depth = 0;
      const second = (async () => {
        await Bun.sleep(100);
        return ask();
      })();
      for (let i = 0; i < 100 && depth < 1; i++) {
        await Bun.sleep(20);
        depth = value(await scrape(), "docchat_model_queue_depth");
      }
      expect(depth).toBe(1);
      abort.abort();
      await Promise.all([first, second]);
      world.upstream!.setMode({ kind: "reply" });
    });

    test("training queue, mail outbox and webhook outbox depths are reported", async () => {
      const { services } = world.server;
      await services.training.stop();
      const bytes = new Uint8Array(readFileSync(join(FIXTURES, "harbour-museum.txt")));
      await services.documents.push(
        { deploymentId: seeded.deploymentId, name: "harbour-museum.txt", bytes, train: true, replace: true },
        { waitMs: 0 },
      );
      await services.repos.outbox.enqueue(
        { messageId: "<m1@test>", to: "owner@example.com", subject: "s", body: "b", leadId: null },
        Date.now() + 3_600_000,
      );
      // a delivery to an endpoint that is paused waits in the outbox
      const endpoint = await services.repos.webhooks.createEndpoint({
        id: "whe_metrics",
        deploymentId: seeded.deploymentId,
        url: "https://hooks.example.com/x",
        secret: "whsec_c2VjcmV0",
        events: ["answer.refused"],
        description: "",
      });
      await services.repos.webhooks.updateEndpoint(seeded.deploymentId, endpoint.id, { enabled: false });
      await services.repos.webhooks.enqueue({
        deploymentId: seeded.deploymentId,
        endpointId: endpoint.id,
        eventId: "msg_m",
        type: "webhook.test",
        payload: "{}",
      });
      const text = await scrape();
      expect(value(text, "docchat_training_queue_depth")).toBe(1);
      expect(value(text, "docchat_mail_outbox_depth")).toBe(1);
      expect(value(text, "docchat_webhook_outbox_depth")).toBe(1);
      services.training.start();
    });
  });
});
