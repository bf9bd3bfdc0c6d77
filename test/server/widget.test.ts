import { describe, expect, test } from "bun:test";
import { insertChatLog } from "../helpers/chat-logs.ts";
import { startTestServer, useTestServer } from "../helpers/server.ts";
import { describeEngines } from "../helpers/stores.ts";

describeEngines("widget and visitor endpoints", (engine) => {
  const srv = useTestServer(engine);

  const postJson = (path: string, key: string | null, body: unknown = {}) =>
    fetch(`${srv.url}${path}`, {
      method: "POST",
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const postForm = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${srv.url}${path}`, { method: "POST", headers, body: new URLSearchParams(fields) });

  const ratingOf = async (id: number) => (await srv.services.repos.chatLogFeedback.findById(id))?.rating ?? null;

  describe("widget config", () => {
    test("returns the deployment's name, starter questions, Q&A pairs and handoff_enabled for the key alone", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      await srv.services.deployments.update(deploymentId, {
        name: "Bike Shop",
        starterQuestions: ["Do you repair e-bikes?"],
        qaPairs: [{ question: "Where are you?", answer: "Main Street 1." }],
        handoffEnabled: true,
      });
      const r = await postJson("/api/v1/widget/config", apiKey);
      expect(r.status).toBe(200);
      expect(r.headers.get("x-ratelimit-limit")).toBe("120");
      expect(await r.json()).toEqual({
        id: deploymentId,
        name: "Bike Shop",
        starter_questions: ["Do you repair e-bikes?"],
        qa_pairs: [{ question: "Where are you?", answer: "Main Street 1." }],
        handoff_enabled: true,
        // mail is off in this server: the widget must not promise an email
        handoff_mail: false,
        feedback_enabled: true,
      });
    });

    test("works with an empty body and with the key in an api_key form field, and needs a valid key", async () => {
      const { apiKey } = await srv.seed();
      const empty = await fetch(`${srv.url}/api/v1/widget/config`, { method: "POST", headers: { authorization: `Bearer ${apiKey}` } });
      expect((await empty.json()).handoff_enabled).toBe(false);
      expect((await postForm("/api/v1/widget/config", { api_key: apiKey })).status).toBe(200);
      const bad = await postJson("/api/v1/widget/config", "dck_wrong0000000000000000");
      expect(bad.status).toBe(401);
      expect((await bad.json()).error.code).toBe("bad_key");
    });
  });

  describe("widget feedback", () => {
    test("stores a rating on the key's own chat log and confirms it", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      const log = await insertChatLog(srv.services, { deploymentId });
      const r = await postJson("/api/v1/widget/feedback", apiKey, { chat_log_id: log.id, feedback: 0 });
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ success: true, chat_log_id: log.id, feedback: 0 });
      expect(await ratingOf(log.id)).toBe(0);
      await postJson("/api/v1/widget/feedback", apiKey, { chat_log_id: log.id, feedback: 1 });
      expect(await ratingOf(log.id)).toBe(1);
    });

    test("a rating of 0 puts the answer on the owner's corrections list and a written correction is then found for the question", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      const log = await insertChatLog(srv.services, { deploymentId, question: "Can I pay by invoice?", answer: "I don't know." });
      await postJson("/api/v1/widget/feedback", apiKey, { chat_log_id: log.id, feedback: 0 });
      expect((await srv.services.corrections.list(deploymentId)).map((i) => i.turn.id)).toEqual([log.id]);
      await srv.services.corrections.set(log.id, "Yes, for business customers.", { deploymentId });
      expect((await srv.services.corrections.findFor(deploymentId, "can i pay by INVOICE"))?.answer).toBe("Yes, for business customers.");
    });

    test("rejects ratings other than exactly 1 or 0 and ids that are not positive integers with 400", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      const log = await insertChatLog(srv.services, { deploymentId });
      for (const body of [
        { chat_log_id: log.id, feedback: 2 },
        { chat_log_id: log.id, feedback: "yes" },
        { chat_log_id: log.id, feedback: 0.5 },
        { chat_log_id: log.id },
        { chat_log_id: 0, feedback: 1 },
        { chat_log_id: -3, feedback: 1 },
        { chat_log_id: 1.5, feedback: 1 },
        { chat_log_id: "12abc", feedback: 1 },
        { feedback: 1 },
      ]) {
        const r = await postJson("/api/v1/widget/feedback", apiKey, body);
        expect(r.status).toBe(400);
        expect((await r.json()).error.code).toBe("bad_request");
      }
      expect(await ratingOf(log.id)).toBeNull();
    });

    test("an unknown chat log is 404 not_found", async () => {
      const { apiKey } = await srv.seed();
      const r = await postJson("/api/v1/widget/feedback", apiKey, { chat_log_id: 987_654_321, feedback: 1 });
      expect(r.status).toBe(404);
      expect((await r.json()).error.code).toBe("not_found");
    });
  });

  describe("native visitor endpoints", () => {
    test("/api/faq/details/ returns the name and Q&A pairs for the form api_key", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      await srv.services.deployments.update(deploymentId, {
        name: "Bakery",
        qaPairs: [{ question: "Gluten free?", answer: "Some breads." }],
      });
      const r = await postForm("/api/faq/details/", { api_key: apiKey });
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ details: { name: "Bakery", questions: [{ question: "Gluten free?", answer: "Some breads." }] } });
      expect((await postForm("/api/faq/details", { api_key: apiKey })).status).toBe(200);
    });

    test("/api/faq/details/ with a bad key answers with a plain error string", async () => {
      const r = await postForm("/api/faq/details/", { api_key: "dck_wrong0000000000000000" });
      expect(r.status).toBe(401);
      expect(typeof (await r.json()).error).toBe("string");
    });

    test("/api/feedback/ stores form ratings with the key as a form field or X-API-KEY", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      const log = await insertChatLog(srv.services, { deploymentId });
      const a = await postForm("/api/feedback/", { api_key: apiKey, chat_log_id: String(log.id), feedback: "0" });
      expect(a.status).toBe(200);
      expect(await a.json()).toEqual({ success: true });
      expect(await ratingOf(log.id)).toBe(0);
      const b = await postForm("/api/feedback", { chat_log_id: String(log.id), feedback: "1" }, { "x-api-key": apiKey });
      expect(await b.json()).toEqual({ success: true });
      expect(await ratingOf(log.id)).toBe(1);
    });

    test("/api/feedback/ answers 400 for malformed form fields and 401 without a key", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      const log = await insertChatLog(srv.services, { deploymentId });
      const malformed: Record<string, string>[] = [
        { chat_log_id: String(log.id), feedback: "1.0" },
        { chat_log_id: String(log.id), feedback: " 1" },
        { chat_log_id: String(log.id), feedback: "2" },
        { chat_log_id: String(log.id), feedback: "" },
        { chat_log_id: `0${log.id}`, feedback: "1" },
        { chat_log_id: "abc", feedback: "1" },
        { chat_log_id: "1e3", feedback: "1" },
        { feedback: "1" },
      ];
      for (const fields of malformed) {
        const r = await postForm("/api/feedback/", { api_key: apiKey, ...fields });
        expect(r.status).toBe(400);
      }
      expect(await ratingOf(log.id)).toBeNull();
      const noKey = await postForm("/api/feedback/", { chat_log_id: String(log.id), feedback: "1" });
      expect(noKey.status).toBe(401);
    });
  });

  describe("deployment isolation", () => {
    test("deployment A's key cannot rate B's chat log on either family: it is not found and B's log is untouched", async () => {
      const a = await srv.seed();
      const b = await srv.seed();
      const bLog = await insertChatLog(srv.services, { deploymentId: b.deploymentId });
      const v1 = await postJson("/api/v1/widget/feedback", a.apiKey, { chat_log_id: bLog.id, feedback: 0 });
      expect(v1.status).toBe(404);
      expect((await v1.json()).error.code).toBe("not_found");
      const native = await postForm("/api/feedback/", { api_key: a.apiKey, chat_log_id: String(bLog.id), feedback: "0" });
      expect(native.status).toBe(404);
      expect(await ratingOf(bLog.id)).toBeNull();
      expect(await srv.services.corrections.list(a.deploymentId)).toEqual([]);
      expect(await srv.services.corrections.list(b.deploymentId)).toEqual([]);
    });

    test("deployment A's key reads only A's widget config and Q&A pairs", async () => {
      const a = await srv.seed();
      const b = await srv.seed();
      await srv.services.deployments.update(b.deploymentId, { name: "Secret B", qaPairs: [{ question: "B only?", answer: "Yes." }] });
      const cfg = await (await postJson("/api/v1/widget/config", a.apiKey)).json();
      expect(cfg.id).toBe(a.deploymentId);
      expect(cfg.qa_pairs).toEqual([]);
      const faq = await (await postForm("/api/faq/details/", { api_key: a.apiKey })).json();
      expect(faq.details.name).not.toBe("Secret B");
    });
  });

  describe("switching the native family off", () => {
    test("makes /api/faq/details/ and /api/feedback/ plain 404s while the widget endpoints keep working", async () => {
      const off = await startTestServer({ DOCCHAT_NATIVE_API: "off" }, { engine });
      try {
        const { apiKey } = await off.seed();
        for (const path of ["/api/faq/details/", "/api/feedback/"]) {
          const r = await fetch(`${off.url}${path}`, {
            method: "POST",
            body: new URLSearchParams({ api_key: apiKey, chat_log_id: "1", feedback: "1" }),
          });
          expect(r.status).toBe(404);
          // Not gated (no key lookup), but like every /api answer it carries rate-limit headers, counted by address.
          expect(((await r.json()) as { error: { code: string } }).error.code).toBe("not_found");
          expect(r.headers.get("x-ratelimit-remaining")).not.toBeNull();
        }
        const cfg = await fetch(`${off.url}/api/v1/widget/config`, { method: "POST", headers: { authorization: `Bearer ${apiKey}` } });
        expect(cfg.status).toBe(200);
      } finally {
        await off.stop();
      }
    });
  });
});
