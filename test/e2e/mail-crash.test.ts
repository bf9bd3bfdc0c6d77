import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type HandoffShop, refusedQuestion, seedHandoffShop, spawnServe, widgetHandoff } from "../helpers/handoff-shop.ts";
import { countByMessageId, type SmtpSink, startSmtpSink } from "../helpers/smtp-sink.ts";
import { waitUntil } from "../helpers/wait.ts";

let sink: SmtpSink;
let shop: HandoffShop;
let env: Record<string, string>;

beforeAll(async () => {
  sink = await startSmtpSink();
  env = {
    DOCCHAT_SMTP_URL: sink.url,
    DOCCHAT_MAIL_FROM: "docchat@example.com",
    DOCCHAT_MAIL_POLL_MS: "20",
    DOCCHAT_MAIL_RETRY_BASE_MS: "20",
    DOCCHAT_MAIL_RETRY_MAX_MS: "100",
    DOCCHAT_MAIL_MAX_ATTEMPTS: "1000",
    DOCCHAT_MAIL_SEND_TIMEOUT_MS: "1000",
    DOCCHAT_EMBEDDER: "none",
  };
  // This process only seeds and reads the database; it never runs the outbox worker.
  shop = await seedHandoffShop({ env, owner: "crash-owner@example.com", name: "Crash Shop" });
});
afterAll(async () => {
  await shop.close();
  await sink.stop();
});

const mailOf = async (leadId: number) => (await shop.s.repos.outbox.list()).find((m) => m.leadId === leadId);

describe("owner mail across a kill -9", () => {
  test("a lead committed but not yet mailed when the server is killed is mailed exactly once after restart", async () => {
    const conversationId = await refusedQuestion(shop, "Killed before sending?");
    await sink.stop();
    const first = await spawnServe(shop.dir, env);
    const r = await widgetHandoff(shop, { url: first.url, conversationId, email: "before-send@example.org" });
    expect(r.status).toBe(200);
    const { lead_id: leadId } = await r.json();
    await waitUntil(async () => ((await mailOf(leadId))?.attempts ?? 0) > 0, "a failed delivery attempt");
    first.proc.kill(9);
    await first.proc.exited;
    expect((await mailOf(leadId))?.status).not.toBe("sent");

    await sink.start();
    const second = await spawnServe(shop.dir, env);
    try {
      await waitUntil(async () => (await mailOf(leadId))?.status === "sent", "delivery after the restart");
      const messageId = (await mailOf(leadId))?.messageId as string;
      expect(countByMessageId(sink.messages).get(messageId)).toBe(1);
      expect(sink.messages.find((m) => m.messageId === messageId)?.text).toContain("before-send@example.org");
    } finally {
      second.proc.kill("SIGTERM");
      await second.proc.exited;
    }
  }, 60_000);

  test("a server killed in the middle of sending delivers the mail after restart, at most once more, under the same Message-ID", async () => {
    const conversationId = await refusedQuestion(shop, "Killed while sending?");
    sink.setMode("hold");
    const first = await spawnServe(shop.dir, env);
    const r = await widgetHandoff(shop, { url: first.url, conversationId, email: "mid-send@example.org" });
    expect(r.status).toBe(200);
    const { lead_id: leadId } = await r.json();
    const messageId = (await mailOf(leadId))?.messageId as string;
    await waitUntil(() => sink.held.some((m) => m.messageId === messageId), "the sink to receive the message without acknowledging it");
    first.proc.kill(9);
    await first.proc.exited;
    expect((await mailOf(leadId))?.status).toBe("sending");

    sink.setMode("accept");
    const second = await spawnServe(shop.dir, env);
    try {
      await waitUntil(async () => (await mailOf(leadId))?.status === "sent", "delivery after the restart");
      const acknowledged = countByMessageId(sink.messages).get(messageId) ?? 0;
      const everArrived = acknowledged + (countByMessageId(sink.held).get(messageId) ?? 0);
      expect(acknowledged).toBe(1);
      expect(everArrived).toBeLessThanOrEqual(2);
    } finally {
      second.proc.kill("SIGTERM");
      await second.proc.exited;
    }
  }, 60_000);
});
