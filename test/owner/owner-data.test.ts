import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { insertChatLog } from "../helpers/chat-logs.ts";
import { fixture } from "../helpers/paths.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { describeEngines } from "../helpers/stores.ts";
import { testSql } from "../helpers/test-sql.ts";
import { waitUntil } from "../helpers/wait.ts";
import { type OwnerClient, signedInOwner } from "./owner-client.ts";

setDefaultTimeout(30_000);

describeEngines("owner data", (engine) => {
  let server: TestServer;
  let owner: OwnerClient;
  let dep = "";
  beforeAll(async () => {
    server = await startTestServer({}, { engine });
    owner = (await signedInOwner(server, { tokens: 5000 })).client;
    dep = (await owner.post<{ deployment: { id: string } }>("/deployments", { name: "Data" })).body.deployment.id;
    await owner.patch(`/deployments/${dep}`, { handoff_enabled: true, published: true });
  }, 60_000);
  afterAll(() => server.stop());

  interface Docs {
    training_status: string;
    data: { id: string; name: string; status: string; error: { code: string; message: string | null } | null }[];
  }

  async function waitTrained(): Promise<Docs> {
    for (let i = 0; i < 100; i++) {
      const r = await owner.get<Docs>(`/deployments/${dep}/documents`);
      if (r.body.data.every((d) => d.status === "completed" || d.status === "failed")) return r.body;
      await Bun.sleep(100);
    }
    throw new Error("training did not finish");
  }

  describe("documents", () => {
    test("a multipart upload is queued (202), polled to Completed and listed; removing takes it out", async () => {
      const form = new FormData();
      form.append("file", new File([readFileSync(fixture("docs/prose-with-commas.txt"))], "prose.txt"));
      const up = await owner.post<{ document: { id: string; status: string; status_url: string } }>(`/deployments/${dep}/documents`, form);
      expect(up.status).toBe(202);
      expect(up.body.document.status_url).toBe(`/owner/api/deployments/${dep}/documents/${up.body.document.id}`);
      const docs = await waitTrained();
      expect(docs.training_status).toBe("completed");
      expect(docs.data.map((d) => [d.name, d.status])).toEqual([["prose.txt", "completed"]]);
      expect((await owner.get(`/deployments/${dep}/documents/${up.body.document.id}`)).body).toMatchObject({ status: "completed" });
      const pdf = new FormData();
      pdf.append("file", new File([readFileSync(fixture("docs/three-pages.pdf"))], "three-pages.pdf"));
      expect((await owner.post(`/deployments/${dep}/documents`, pdf)).status).toBe(202);
      expect((await waitTrained()).data).toHaveLength(2);
      const del = await owner.del<Docs>(`/deployments/${dep}/documents/${up.body.document.id}`);
      expect(del.body.data.map((d) => d.name)).toEqual(["three-pages.pdf"]);
    });

    test("an unsupported file is refused with a message the console can show", async () => {
      const form = new FormData();
      form.append("file", new File([readFileSync(fixture("docs/tiny.png"))], "photo.txt"));
      const r = await owner.post(`/deployments/${dep}/documents`, form);
      expect(r.status).toBe(415);
      expect(r.body).toMatchObject({ error: { code: "unsupported_document", message: expect.stringContaining("PDF, DOCX, TXT or CSV") } });
    });
  });

  describe("corrections, chat logs and leads", () => {
    test("answers rated 0 are listed with question, answer, sources and time; a correction is written, edited and its servings counted", async () => {
      const s = server.services;
      const log = await insertChatLog(s, { deploymentId: dep, question: "When do you open?", answer: "Wrong answer", sources: ["hours"] });
      await s.feedback.rate(dep, log.id, 0);
      const list = await owner.get<{ open: Record<string, unknown>[] }>(`/deployments/${dep}/corrections`);
      expect(list.body.open[0]).toMatchObject({
        chat_log_id: log.id,
        question: "When do you open?",
        answer: "Wrong answer",
        sources: ["hours"],
        correction: null,
      });
      expect(typeof list.body.open[0]?.rated_at).toBe("number");
      expect((await owner.put(`/deployments/${dep}/corrections/${log.id}`, { answer: "  " })).status).toBe(400);
      const put = await owner.put(`/deployments/${dep}/corrections/${log.id}`, { answer: "We open at 9." });
      expect(put.body).toMatchObject({ chat_log_id: log.id, answer: "We open at 9.", active: true, served_count: 0 });
      await owner.put(`/deployments/${dep}/corrections/${log.id}`, { answer: "We open at 8." });
      await s.corrections.findFor(dep, "when do you open");
      await s.corrections.findFor(dep, "When do you open??");
      const after = await owner.get<{
        open: { correction: { answer: string; served_count: number } }[];
        corrections: { answer: string; served_count: number }[];
      }>(`/deployments/${dep}/corrections`);
      expect(after.body.open[0]?.correction).toMatchObject({ answer: "We open at 8.", served_count: 2 });
      expect(after.body.corrections).toEqual([expect.objectContaining({ answer: "We open at 8.", served_count: 2, active: true })]);
      expect((await owner.del(`/deployments/${dep}/corrections/${log.id}`)).status).toBe(200);
      expect(await s.corrections.findFor(dep, "When do you open?")).toBeNull();
    });

    test("chat logs are listed newest first and readable by id", async () => {
      const first = await insertChatLog(server.services, { deploymentId: dep, question: "first?" });
      const second = await insertChatLog(server.services, { deploymentId: dep, question: "second?", refused: true });
      const list = await owner.get<{ data: { id: number; refused: boolean }[] }>(`/deployments/${dep}/chat-logs?limit=2`);
      expect(list.body.data.map((l) => l.id)).toEqual([second.id, first.id]);
      expect(list.body.data[0]?.refused).toBe(true);
      const older = await owner.get<{ data: { id: number }[] }>(`/deployments/${dep}/chat-logs?limit=1&before=${second.id}`);
      expect(older.body.data.map((l) => l.id)).toEqual([first.id]);
      expect((await owner.get(`/deployments/${dep}/chat-logs/${first.id}`)).body).toMatchObject({ question: "first?" });
      expect((await owner.get(`/deployments/${dep}/chat-logs/999999`)).status).toBe(404);
    });

    test("leads are listed with their mail delivery state and exported as formula-safe CSV", async () => {
      const s = server.services;
      const refusal = await insertChatLog(s, { deploymentId: dep, refused: true, question: "Can I pay by cheque?" });
      const deployment = await s.repos.deployments.findById(dep);
      if (!deployment) throw new Error("missing");
      const { lead } = await s.leads.handoff({
        deployment,
        ownerEmail: "owner@example.com",
        email: "v@example.com",
        name: '=HYPERLINK("x")',
        message: "Call me",
        conversationId: refusal.conversationId,
      });
      const outbox = await testSql(s).get<{ id: number }>("SELECT id FROM mail_outbox WHERE lead_id = ?", [lead.id]);
      const state = async () =>
        (await owner.get<{ data: { delivery: string; id: number }[] }>(`/deployments/${dep}/leads`)).body.data.find((l) => l.id === lead.id)
          ?.delivery;
      const outboxId = Number(outbox?.id ?? 0);
      await waitUntil(async () => (await s.repos.outbox.findById(outboxId))?.status === "sent", "the log driver to take the mail");
      // Rewind the (already logged) mail and keep the worker away from it while the states are checked.
      await testSql(s).run(
        "UPDATE mail_outbox SET status = 'pending', attempts = 0, last_error = NULL, sent_at = NULL, sent_via = NULL, next_attempt_at = ? WHERE id = ?",
        [Date.now() + 3_600_000, outboxId],
      );
      expect(await state()).toBe("queued");
      await s.repos.outbox.markRetry(outboxId, Date.now() + 60_000, "connection refused");
      await testSql(s).run("UPDATE mail_outbox SET attempts = 2 WHERE id = ?", [outboxId]);
      expect(await state()).toBe("retrying");
      await s.repos.outbox.markDead(outboxId, "gave up");
      expect(await state()).toBe("dead-lettered");
      await s.repos.outbox.markSent(outboxId, "smtp");
      expect(await state()).toBe("sent");
      const res = await owner.call("GET", `/owner/api/deployments/${dep}/leads.csv`);
      expect(res.headers.get("content-type")).toContain("text/csv");
      expect(res.headers.get("content-disposition")).toContain("attachment");
      expect(String(res.body)).toContain(`"'=HYPERLINK(""x"")"`);
      expect(String(res.body)).toContain("v@example.com");
    });
  });

  describe("reports", () => {
    test("per-day questions, answers, refusals, tokens, ratings, corrections served and leads, plus top questions", async () => {
      const s = await startTestServer({}, { engine });
      try {
        const o = (await signedInOwner(s)).client;
        const id = (await o.post<{ deployment: { id: string } }>("/deployments", { name: "R" })).body.deployment.id;
        const at = (day: string, hour: number) => Date.parse(`${day}T${String(hour).padStart(2, "0")}:00:00Z`);
        const add = async (
          day: string,
          q: string,
          opts: { refused?: boolean; rating?: 0 | 1; tokens?: number; corrected?: boolean; hour?: number } = {},
        ) => {
          const l = await insertChatLog(s.services, { deploymentId: id, question: q, refused: opts.refused });
          await testSql(s.services).run(
            "UPDATE chat_logs SET created_at = ?, rating = ?, prompt_tokens = ?, completion_tokens = 5, correction_id = ? WHERE id = ?",
            [at(day, opts.hour ?? 12), opts.rating ?? null, opts.tokens ?? 10, opts.corrected ? 1 : null, l.id],
          );
          return l;
        };
        await add("2025-03-01", "Opening hours?", { rating: 1 });
        await add("2025-03-01", "opening hours? ", { rating: 0 });
        await add("2025-03-01", "Bake bread?", { refused: true, tokens: 0 });
        await add("2025-03-03", "Opening hours?", { corrected: true, tokens: 0 });
        await add("2025-03-03", "Bake bread?", { refused: true, tokens: 0, hour: 23 });
        await add("2025-03-05", "Outside the range");
        const lead = await add("2025-03-03", "Parking?", { refused: true, tokens: 0 });
        await testSql(s.services).run(
          "INSERT INTO leads (deployment_id, conversation_id, chat_log_id, email, created_at) VALUES (?, ?, ?, 'v@example.com', ?)",
          [id, lead.conversationId, lead.id, at("2025-03-03", 9)],
        );
        const r = await o.get<{
          days: Record<string, unknown>[];
          totals: Record<string, number>;
          top_questions: unknown[];
          top_refused: unknown[];
        }>(`/deployments/${id}/reports?from=2025-03-01&to=2025-03-03`);
        expect(r.body).toMatchObject({ from: "2025-03-01" });
        expect(r.body.days).toEqual([
          {
            day: "2025-03-01",
            questions: 3,
            answers: 2,
            refusals: 1,
            tokens: 35,
            rated_up: 1,
            rated_down: 1,
            corrections_served: 0,
            leads: 0,
          },
          {
            day: "2025-03-02",
            questions: 0,
            answers: 0,
            refusals: 0,
            tokens: 0,
            rated_up: 0,
            rated_down: 0,
            corrections_served: 0,
            leads: 0,
          },
          {
            day: "2025-03-03",
            questions: 3,
            answers: 1,
            refusals: 2,
            tokens: 15,
            rated_up: 0,
            rated_down: 0,
            corrections_served: 1,
            leads: 1,
          },
        ]);
        expect(r.body.totals).toMatchObject({ questions: 6, refusals: 3, leads: 1 });
        expect(r.body.top_questions[0]).toEqual({ question: "Opening hours?", count: 3 });
        expect(r.body.top_refused[0]).toEqual({ question: "Bake bread?", count: 2 });
        // In UTC+2 the 23:00 UTC refusal of 3 March falls on 4 March.
        const shifted = await o.get<{ days: { day: string; refusals: number }[] }>(
          `/deployments/${id}/reports?from=2025-03-03&to=2025-03-04&tz_offset=120`,
        );
        expect(shifted.body.days.map((d) => [d.day, d.refusals])).toEqual([
          ["2025-03-03", 1],
          ["2025-03-04", 1],
        ]);
        for (const q of [
          "from=2025-03-05&to=2025-03-01",
          "from=2025-02-30&to=2025-03-01",
          "from=2024-01-01&to=2025-06-01",
          "from=x&to=y",
        ]) {
          const bad = await o.get(`/deployments/${id}/reports?${q}`);
          expect(bad.status).toBe(400);
        }
      } finally {
        await s.stop();
      }
    });
  });

  describe("account, documentation and assets", () => {
    test("the account shows the balance and its ledger, newest first", async () => {
      await server.services.repos.accounts.setTokens((await owner.get<{ id: number }>("/account")).body.id, 4200);
      const r = await owner.get<{ tokens: number; ledger: { delta: number; reason: string }[] }>("/account");
      expect(r.body.tokens).toBe(4200);
      expect(r.body.ledger.map((l) => [l.reason, l.delta])).toEqual([
        ["set", -800],
        ["grant", 5000],
      ]);
    });

    test("the owner API's OpenAPI document is served locally and generated from the route schemas", async () => {
      const r = await fetch(`${server.url}/owner/api/openapi.json`);
      const spec = (await r.json()) as {
        openapi: string;
        paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
      };
      expect(spec.openapi).toBe("3.1.0");
      expect(Object.keys(spec.paths)).toEqual(
        expect.arrayContaining([
          "/owner/api/session",
          "/owner/api/deployments/{id}",
          "/owner/api/deployments/{id}/reports",
          "/owner/api/deployments/{id}/leads.csv",
        ]),
      );
      expect(Object.keys(spec.paths).every((p) => p.startsWith("/owner/api/"))).toBe(true);
      expect(Object.keys(spec.paths["/owner/api/deployments/{id}/documents"]?.post?.requestBody?.content ?? {})).toEqual([
        "multipart/form-data",
      ]);
      expect(Object.keys(spec.paths["/owner/api/deployments/{id}"]?.patch?.requestBody?.content ?? {})).toEqual(["application/json"]);
    });

    test("console pages carry a strict CSP and the widget script is served for other sites", async () => {
      const page = await fetch(`${server.url}/console/`);
      const csp = page.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(page.headers.get("x-frame-options")).toBe("DENY");
      const html = await page.text();
      expect(html).not.toMatch(/<script>|<style>|\son\w+=/);
      expect((await fetch(`${server.url}/`, { redirect: "manual" })).headers.get("location")).toBe("/console/");
      const js = await fetch(`${server.url}/console/app.js`);
      expect(js.headers.get("content-type")).toContain("javascript");
      const widget = await fetch(`${server.url}/widget.js`);
      expect(widget.status).toBe(200);
      expect(widget.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
      expect(await widget.text()).toContain("attachShadow");
    });
  });
});
