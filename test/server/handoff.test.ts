import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { configFor, createServices } from "../../src/app.ts";
import { createLogger } from "../../src/log.ts";
import { insertChatLog } from "../helpers/chat-logs.ts";
import { startTestServer, type TestServer, tempDir } from "../helpers/server.ts";
import { countByMessageId, type SmtpSink, startSmtpSink } from "../helpers/smtp-sink.ts";
import { describeEngines, freshPgDatabase } from "../helpers/stores.ts";
import { waitUntil } from "../helpers/wait.ts";

describeEngines("handoff", (engine) => {
  let srv: TestServer;
  let sink: SmtpSink;
  let ipSeq = 0;
  beforeAll(async () => {
    sink = await startSmtpSink();
    srv = await startTestServer(
      {
        DOCCHAT_SMTP_URL: sink.url,
        DOCCHAT_MAIL_FROM: "docchat@example.com",
        DOCCHAT_MAIL_POLL_MS: "20",
        DOCCHAT_MAIL_RETRY_BASE_MS: "20",
        DOCCHAT_MAIL_RETRY_MAX_MS: "200",
        DOCCHAT_MAIL_MAX_ATTEMPTS: "1000",
        DOCCHAT_MAIL_SEND_TIMEOUT_MS: "5000",
        // lets each test act as its own client address via X-Forwarded-For, so the per-IP limit is testable
        DOCCHAT_TRUSTED_PROXIES: "127.0.0.1/32",
      },
      { engine },
    );
  }, 60_000);
  afterAll(async () => {
    await srv.stop();
    await sink.stop();
  });

  /** A fresh client address per call unless one is given. */
  const handoff = (key: string, body: Record<string, unknown>, ip = `198.51.100.${(++ipSeq % 250) + 1}`) =>
    fetch(`${srv.url}/api/v1/widget/handoff`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-forwarded-for": ip },
      body: JSON.stringify(body),
    });

  async function handoffDeployment() {
    const seeded = await srv.seed();
    await srv.services.deployments.update(seeded.deploymentId, { name: "Bike Shop", handoffEnabled: true });
    return seeded;
  }

  const leadsOf = (deploymentId: string) => srv.services.repos.leads.list(deploymentId);
  const allSent = async (deploymentId: string) => (await leadsOf(deploymentId)).every((l) => l.mail?.status === "sent");

  describe("handoff", () => {
    test("with mail on, widget config tells the widget the owner is mailed (handoff_mail: true)", async () => {
      const { apiKey } = await srv.seed();
      const r = await fetch(`${srv.url}/api/v1/widget/config`, { method: "POST", headers: { authorization: `Bearer ${apiKey}` } });
      expect(((await r.json()) as { handoff_mail: boolean }).handoff_mail).toBe(true);
    });

    test("after a refusal it stores the lead and the owner's mail arrives with the lead's details", async () => {
      const { apiKey, deploymentId, email: owner } = await handoffDeployment();
      await insertChatLog(srv.services, { deploymentId, conversationId: "conv-one", question: "Do you fix cargo bikes?", refused: false });
      const refused = await insertChatLog(srv.services, {
        deploymentId,
        conversationId: "conv-one",
        question: "Can you service a 1970s tandem?",
        refused: true,
      });
      const r = await handoff(apiKey, {
        email: "visitor@example.org",
        name: "Vera Visitor",
        message: "Please call me back.\nThanks!",
        conversation_id: "conv-one",
      });
      expect(r.status).toBe(200);
      const body = await r.json();
      expect(body).toEqual({ success: true, lead_id: expect.any(Number) });

      const [lead] = await leadsOf(deploymentId);
      expect(lead).toMatchObject({
        id: body.lead_id,
        email: "visitor@example.org",
        name: "Vera Visitor",
        message: "Please call me back.\nThanks!",
        refusedQuestion: "Can you service a 1970s tandem?",
        conversationId: "conv-one",
        chatLogId: refused.id,
      });

      await waitUntil(() => sink.messages.some((m) => m.envelopeTo.includes(owner)), "the owner's mail");
      const mail = sink.messages.find((m) => m.envelopeTo.includes(owner));
      expect(mail?.subject).toBe("New contact request: Bike Shop");
      expect(mail?.envelopeFrom).toBe("docchat@example.com");
      for (const detail of [
        "visitor@example.org",
        "Vera Visitor",
        "Please call me back.\nThanks!",
        "Can you service a 1970s tandem?",
        "conv-one",
      ]) {
        expect(mail?.text).toContain(detail);
      }
      await waitUntil(() => allSent(deploymentId), "the outbox row to be marked sent");
      expect((await leadsOf(deploymentId))[0]?.mail).toMatchObject({ status: "sent", sentVia: "smtp", attempts: 1 });
    });

    test("can name the refused turn by chat_log_id instead of the conversation", async () => {
      const { apiKey, deploymentId } = await handoffDeployment();
      const refused = await insertChatLog(srv.services, { deploymentId, refused: true, question: "Do you rent bikes?" });
      const r = await handoff(apiKey, { email: "v@example.org", chat_log_id: refused.id });
      expect(r.status).toBe(200);
      expect((await leadsOf(deploymentId))[0]?.refusedQuestion).toBe("Do you rent bikes?");
    });

    test("is refused with 409 handoff_not_offered when the conversation had no refusal", async () => {
      const { apiKey, deploymentId } = await handoffDeployment();
      const answered = await insertChatLog(srv.services, { deploymentId, refused: false });
      for (const body of [
        { conversation_id: answered.conversationId },
        { chat_log_id: answered.id },
        { conversation_id: "conv-never-seen" },
        { chat_log_id: 999_999_999 },
      ]) {
        const r = await handoff(apiKey, { email: "v@example.org", ...body });
        expect(r.status).toBe(409);
        expect((await r.json()).error.code).toBe("handoff_not_offered");
      }
      expect(await leadsOf(deploymentId)).toEqual([]);
    });

    test("is refused with 403 handoff_disabled when the deployment does not offer it, even after a refusal", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      const refused = await insertChatLog(srv.services, { deploymentId, refused: true });
      const r = await handoff(apiKey, { email: "v@example.org", conversation_id: refused.conversationId });
      expect(r.status).toBe(403);
      expect((await r.json()).error.code).toBe("handoff_disabled");
      expect(await leadsOf(deploymentId)).toEqual([]);
    });

    test("rejects CR or LF in the email or name, bad emails and oversized fields with 400, storing and mailing nothing", async () => {
      const { apiKey, deploymentId, email: owner } = await handoffDeployment();
      const refused = await insertChatLog(srv.services, { deploymentId, refused: true });
      const conv = { conversation_id: refused.conversationId };
      for (const body of [
        { email: "v@example.org\r\nBcc: victim@example.com", ...conv },
        { email: "v@example.org\nBcc: victim@example.com", ...conv },
        { email: "v@example.org", name: "Eve\r\nBcc: victim@example.com", ...conv },
        { email: "v@example.org", name: "Eve\nX-Injected: 1", ...conv },
        { email: "not-an-email", ...conv },
        { email: "v@example.org", name: "x".repeat(201), ...conv },
        { email: "v@example.org", message: "x".repeat(4001), ...conv },
        { email: "v@example.org" },
        { name: "No email", ...conv },
      ]) {
        const r = await handoff(apiKey, body);
        expect(r.status).toBe(400);
        expect((await r.json()).error.code).toBe("bad_request");
      }
      expect(await leadsOf(deploymentId)).toEqual([]);
      expect((await srv.services.repos.outbox.list()).filter((m) => m.to === owner)).toEqual([]);
    });

    test("a repeated request for the same refusal and email returns the same lead and mails the owner once", async () => {
      const { apiKey, deploymentId, email: owner } = await handoffDeployment();
      const refused = await insertChatLog(srv.services, { deploymentId, refused: true });
      const first = await (await handoff(apiKey, { email: "twice@example.org", conversation_id: refused.conversationId })).json();
      const second = await (await handoff(apiKey, { email: "TWICE@example.org", conversation_id: refused.conversationId })).json();
      expect(second.lead_id).toBe(first.lead_id);
      await waitUntil(() => allSent(deploymentId), "the mail to be sent");
      expect(sink.messages.filter((m) => m.envelopeTo.includes(owner)).length).toBe(1);
    });

    test("deployment A's key cannot hand off on B's conversation or chat log", async () => {
      const a = await handoffDeployment();
      const b = await handoffDeployment();
      const bRefusal = await insertChatLog(srv.services, { deploymentId: b.deploymentId, refused: true });
      for (const body of [{ conversation_id: bRefusal.conversationId }, { chat_log_id: bRefusal.id }]) {
        const r = await handoff(a.apiKey, { email: "v@example.org", ...body });
        expect(r.status).toBe(409);
        expect((await r.json()).error.code).toBe("handoff_not_offered");
      }
      expect(await leadsOf(a.deploymentId)).toEqual([]);
      expect(await leadsOf(b.deploymentId)).toEqual([]);
    });

    test("one client address gets at most 10 handoff attempts a minute, across keys", async () => {
      const a = await handoffDeployment();
      const b = await handoffDeployment();
      const ip = "203.0.113.99";
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++)
        statuses.push((await handoff(i % 2 ? a.apiKey : b.apiKey, { email: "v@example.org", conversation_id: "conv-none" }, ip)).status);
      expect(statuses.every((s) => s === 409)).toBe(true);
      const r = await handoff(a.apiKey, { email: "v@example.org", conversation_id: "conv-none" }, ip);
      expect(r.status).toBe(429);
      expect((await r.json()).error.code).toBe("rate_limited");
      expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await handoff(a.apiKey, { email: "v@example.org", conversation_id: "conv-none" }, "203.0.113.100")).status).toBe(409);
    });
  });

  describe("handoff during an SMTP outage", () => {
    test("20 handoffs while the sink is down are all stored at once and all 20 mails arrive once it is back, none twice", async () => {
      const deployments = [await handoffDeployment(), await handoffDeployment()];
      await sink.stop();
      const before = sink.messages.length;
      const leadIds: number[] = [];
      for (let i = 0; i < 20; i++) {
        const d = deployments[i % 2] as (typeof deployments)[number];
        const refused = await insertChatLog(srv.services, {
          deploymentId: d.deploymentId,
          refused: true,
          question: `Outage question ${i}?`,
        });
        const r = await handoff(d.apiKey, {
          email: `outage${i}@example.org`,
          name: `Visitor ${i}`,
          conversation_id: refused.conversationId,
        });
        expect(r.status).toBe(200);
        leadIds.push((await r.json()).lead_id);
      }
      const stored = (await Promise.all(deployments.map((d) => leadsOf(d.deploymentId)))).flat();
      expect(stored.map((l) => l.id).sort((x, y) => x - y)).toEqual([...leadIds].sort((x, y) => x - y));
      expect(stored.every((l) => l.mail?.status !== "sent")).toBe(true);
      expect(sink.messages.length).toBe(before);

      await waitUntil(async () => {
        const mails = await srv.services.repos.outbox.list();
        return stored.some((l) => (mails.find((m) => m.leadId === l.id)?.attempts ?? 0) > 0);
      }, "a failed delivery attempt");
      await sink.start();
      await waitUntil(
        async () => (await Promise.all(deployments.map((d) => allSent(d.deploymentId)))).every(Boolean),
        "all 20 mails to be delivered",
      );

      const outageMail = sink.messages.slice(before);
      const counts = countByMessageId(outageMail);
      expect(counts.size).toBe(20);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      const expectedIds = (await srv.services.repos.outbox.list())
        .filter((m) => m.leadId !== null && leadIds.includes(m.leadId))
        .map((m) => m.messageId);
      expect([...counts.keys()].sort()).toEqual(expectedIds.sort());
      for (let i = 0; i < 20; i++) expect(outageMail.some((m) => m.text.includes(`outage${i}@example.org`))).toBe(true);
    });
  });

  describe("handoff with mail off", () => {
    test("stores the lead, records the notification as logged, and start-up says mail is off", async () => {
      const dir = tempDir();
      const lines: string[] = [];
      const database: Record<string, string> = engine === "postgres" ? { DOCCHAT_DATABASE_URL: await freshPgDatabase() } : {};
      const s = await createServices(configFor(dir, { DOCCHAT_EMBEDDER: "none", DOCCHAT_MAIL_POLL_MS: "20", ...database }), {
        log: createLogger("info", (l) => lines.push(l)),
      });
      try {
        await s.startWorkers();
        expect(lines.some((l) => l.includes("mail is off"))).toBe(true);
        const account = await s.accounts.create({ email: "owner-mailoff@example.com" });
        const { deployment } = await s.deployments.create({ accountId: account.id, name: "Quiet", published: true });
        const d = await s.deployments.update(deployment.id, { handoffEnabled: true });
        const refused = await insertChatLog(s, { deploymentId: d.id, refused: true });
        const { lead } = await s.leads.handoff({
          deployment: d,
          ownerEmail: account.email,
          email: "v@example.org",
          conversationId: refused.conversationId,
        });
        await waitUntil(async () => (await s.repos.leads.list(d.id))[0]?.mail?.status === "sent", "the log driver to take the mail");
        expect((await s.leads.list(d.id)).map((l) => [l.id, l.mail?.sentVia])).toEqual([[lead.id, "log"]]);
        expect(s.mail.enabled).toBe(false);
      } finally {
        await s.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
