/**
 * Issue 22 on both engines: the owner's chat logs as conversations with filters, content-gap candidates, the
 * retention purge (report counts kept), "no transcripts" scrubbing, erasure of one visitor (and nothing else) with
 * its record, and test questions with their runs.
 */
import { expect, test } from "bun:test";
import { createLogger } from "../../../src/log.ts";
import { createPrivacyService } from "../../../src/owner/privacy.service.ts";
import type { Store } from "../../../src/store/contract/index.ts";
import { describeStores } from "../../helpers/stores.ts";
import { seedOwner, turn, uniq } from "../../helpers/visitor-seed.ts";

const DAY = 86_400_000;
const mail = () => ({ messageId: `<${uniq("m")}@docchat>`, to: "owner@example.com", subject: "s", body: "b" });

/** Writes a turn, then moves its time to `at` (the repos stamp "now"). */
async function turnAt(store: Store, t: Parameters<typeof turn>[0], at: number): Promise<number> {
  const { chatLogId } = await store.repos.chatLogs.record(turn(t));
  await exec(store, "UPDATE chat_logs SET created_at = $1 WHERE id = $2", [at, chatLogId]);
  await exec(store, "UPDATE conversations SET updated_at = $1 WHERE id = (SELECT conversation_id FROM chat_logs WHERE id = $2)", [
    at,
    chatLogId,
  ]);
  return chatLogId;
}

/** A raw statement on either engine ($n parameters). */
async function exec(store: Store, q: string, args: (string | number)[]): Promise<Record<string, unknown>[]> {
  if (store.engine === "sqlite") {
    const db = (store as unknown as { db: import("bun:sqlite").Database }).db;
    return db.query(q.replaceAll(/\$(\d+)/g, "?$1")).all(...args) as Record<string, unknown>[];
  }
  const sql = (store as unknown as { sql: import("bun").SQL }).sql;
  return (await sql.unsafe(q, args)) as Record<string, unknown>[];
}

const countOf = async (store: Store, q: string, args: (string | number)[]) => Number((await exec(store, q, args))[0]?.n ?? 0);

describeStores("owner chat logs, gaps, retention, erasure and test questions", (ctx) => {
  test("conversations are listed newest first with their first question, and filters pick the matching ones", async () => {
    const s = ctx.store();
    const o = await seedOwner(s);
    const base = { deploymentId: o.deploymentId, accountId: o.accountId };
    const a = uniq("conv");
    const b = uniq("conv");
    await s.repos.chatLogs.record(turn({ ...base, conversationId: a, question: "Where is the Berlin shop?" }));
    const refused = await s.repos.chatLogs.record(
      turn({ ...base, conversationId: a, question: "Do you sell unicorns?", answer: "I can't answer that", refused: true }),
    );
    const rated = await s.repos.chatLogs.record(turn({ ...base, conversationId: b, question: "Repair times?" }));
    await s.repos.chatLogFeedback.rate(o.deploymentId, rated.chatLogId, 0);
    await s.repos.leads.createWithMail(
      {
        deploymentId: o.deploymentId,
        conversationId: a,
        chatLogId: refused.chatLogId,
        email: "v@example.com",
        name: "",
        message: "",
        refusedQuestion: "unicorns",
      },
      () => mail(),
    );
    const all = await s.repos.conversationLogs.conversations(o.deploymentId, { limit: 10 });
    expect(all.map((c) => [c.conversationId, c.firstQuestion, c.turns, c.refused, c.ratedDown, c.handedOff])).toEqual([
      [b, "Repair times?", 1, 0, 1, false],
      [a, "Where is the Berlin shop?", 2, 1, 0, true],
    ]);
    const pick = async (f: object) =>
      (await s.repos.conversationLogs.conversations(o.deploymentId, { limit: 10, ...f })).map((c) => c.conversationId);
    expect(await pick({ refused: true })).toEqual([a]);
    expect(await pick({ ratedDown: true })).toEqual([b]);
    expect(await pick({ handedOff: true })).toEqual([a]);
    expect(await pick({ text: "UNICORN" })).toEqual([a]);
    expect(await pick({ text: "nothing like this" })).toEqual([]);
    expect(await pick({ fromMs: Date.now() + DAY })).toEqual([]);
    expect(await pick({ beforeId: all[0]?.lastId })).toEqual([a]);
    const turns = await s.repos.conversationLogs.conversation(o.deploymentId, a);
    expect(turns.map((t) => [t.question, t.refused])).toEqual([
      ["Where is the Berlin shop?", false],
      ["Do you sell unicorns?", true],
    ]);
    const other = await seedOwner(s);
    expect(await s.repos.conversationLogs.conversation(other.deploymentId, a)).toEqual([]);
    expect(await s.repos.conversationLogs.turn(other.deploymentId, rated.chatLogId)).toBeNull();
  });

  test("citations and weak answers are stored with the turn; gap candidates are refused, weak, rated 0 or handed off", async () => {
    const s = ctx.store();
    const o = await seedOwner(s);
    const base = { deploymentId: o.deploymentId, accountId: o.accountId };
    const citation = {
      documentId: "doc1",
      chunkId: 7,
      source: "handbook",
      pageStart: 3,
      pageEnd: 3,
      rowStart: null,
      rowEnd: null,
      headingPath: "Returns",
      quote: "Refunds within 30 days",
    };
    const ok = await s.repos.chatLogs.record(turn({ ...base, citations: [citation] }));
    const weak = await s.repos.chatLogs.record(turn({ ...base, question: "weak one", weak: true }));
    const refused = await s.repos.chatLogs.record(turn({ ...base, question: "refused one", refused: true }));
    expect((await s.repos.conversationLogs.turn(o.deploymentId, ok.chatLogId))?.citations).toEqual([citation]);
    const gaps = await s.repos.conversationLogs.gapCandidates(o.deploymentId, 0, 100);
    expect(gaps.map((g) => [g.id, g.refused, g.weak])).toEqual([
      [refused.chatLogId, true, false],
      [weak.chatLogId, false, true],
    ]);
    expect(await s.repos.conversationLogs.questionCount(o.deploymentId, 0)).toBe(3);
    expect(await s.repos.conversationLogs.questions(o.deploymentId, 0, 2)).toEqual(["refused one", "weak one"]);
  });

  test("the purge removes chat logs older than the period, keeps report counts, and keeps a correction's anchor emptied", async () => {
    const s = ctx.store();
    const o = await seedOwner(s, 1000);
    const base = { deploymentId: o.deploymentId, accountId: o.accountId };
    const now = Date.now();
    const old = now - 40 * DAY;
    const oldIds = [
      await turnAt(s, { ...base, question: "old one", promptTokens: 5, visitorEmail: "old@example.com" }, old),
      await turnAt(s, { ...base, question: "old refused", refused: true }, old + 1000),
    ];
    const anchor = await turnAt(s, { ...base, question: "anchor question" }, old + 2000);
    await s.repos.chatLogFeedback.rate(o.deploymentId, anchor, 0);
    await s.repos.corrections.upsert({
      deploymentId: o.deploymentId,
      chatLogId: anchor,
      question: "anchor question",
      questionNorm: "anchor question",
      answer: "fixed",
    });
    const fresh = await turnAt(s, { ...base, question: "fresh" }, now - DAY);
    const range = { deploymentId: o.deploymentId, fromMs: now - 60 * DAY, toMs: now + DAY, offsetMinutes: 0 };
    const before = await s.repos.reports.days(range);
    const r = await s.repos.visitorData.purge(o.deploymentId, now - 30 * DAY);
    expect(r).toEqual({ removed: 2, scrubbed: 1, conversations: 3 });
    expect(await s.repos.reports.days(range)).toEqual(before);
    for (const id of oldIds) expect(await s.repos.conversationLogs.turn(o.deploymentId, id)).toBeNull();
    const kept = await s.repos.conversationLogs.turn(o.deploymentId, anchor);
    expect([kept?.question, kept?.answer, kept?.visitorEmail]).toEqual(["anchor question", "", null]);
    expect(await s.repos.conversationLogs.turn(o.deploymentId, fresh)).not.toBeNull();
    expect(await s.repos.visitorData.purge(o.deploymentId, now - 30 * DAY)).toEqual({ removed: 0, scrubbed: 0, conversations: 0 });
    expect(await s.repos.reports.days(range)).toEqual(before);
  });

  test("the retention job purges each deployment past its own period and leaves the others", async () => {
    const s = ctx.store();
    const o = await seedOwner(s);
    const other = await seedOwner(s);
    const now = Date.now();
    const old = await turnAt(s, { deploymentId: o.deploymentId, accountId: o.accountId, question: "old" }, now - 10 * DAY);
    const recent = await turnAt(s, { deploymentId: o.deploymentId, accountId: o.accountId, question: "recent" }, now - 2 * DAY);
    const kept = await turnAt(s, { deploymentId: other.deploymentId, accountId: other.accountId, question: "kept" }, now - 10 * DAY);
    const privacy = createPrivacyService({ data: s.repos.visitorData, deployments: s.repos.deployments, log: createLogger("silent") });
    await privacy.setPolicy(o.deploymentId, { retentionDays: 7 });
    await expect(privacy.setPolicy(o.deploymentId, { retentionDays: 0 })).rejects.toThrow();
    expect((await privacy.tick(now)).removed).toBeGreaterThanOrEqual(1);
    expect(await s.repos.conversationLogs.turn(o.deploymentId, old)).toBeNull();
    expect(await s.repos.conversationLogs.turn(o.deploymentId, recent)).not.toBeNull();
    expect(await s.repos.conversationLogs.turn(other.deploymentId, kept)).not.toBeNull();
  });

  test("no transcripts: an idle conversation's text is emptied, a question rated 0 stays; a live one is untouched", async () => {
    const s = ctx.store();
    const o = await seedOwner(s);
    const base = { deploymentId: o.deploymentId, accountId: o.accountId };
    const now = Date.now();
    const idle = await turnAt(s, { ...base, question: "idle question", visitorEmail: "x@example.com" }, now - 3600_000);
    const rated = await turnAt(s, { ...base, question: "rated question" }, now - 3600_000);
    await s.repos.chatLogFeedback.rate(o.deploymentId, rated, 0);
    const live = await turnAt(s, { ...base, question: "live question" }, now);
    expect(await s.repos.visitorData.scrubIdle(o.deploymentId, now - 1800_000)).toBe(2);
    const t = async (id: number) => s.repos.conversationLogs.turn(o.deploymentId, id);
    expect([(await t(idle))?.question, (await t(idle))?.answer, (await t(idle))?.visitorEmail]).toEqual(["", "", null]);
    expect([(await t(rated))?.question, (await t(rated))?.answer]).toEqual(["rated question", ""]);
    expect((await t(live))?.question).toBe("live question");
    expect(await s.repos.visitorData.scrubIdle(o.deploymentId, now - 1800_000)).toBe(0);
  });

  test("a policy is read with defaults, changed in parts, and listed when the job has work", async () => {
    const s = ctx.store();
    const o = await seedOwner(s);
    expect(await s.repos.visitorData.policy(o.deploymentId)).toMatchObject({
      retentionDays: null,
      transcripts: true,
      widgetCitations: "off",
    });
    await s.repos.visitorData.setPolicy(o.deploymentId, { retentionDays: 30 });
    const p = await s.repos.visitorData.setPolicy(o.deploymentId, { widgetCitations: "page" });
    expect(p).toMatchObject({ retentionDays: 30, transcripts: true, widgetCitations: "page" });
    expect(await (await ctx.node()).repos.visitorData.policy(o.deploymentId)).toEqual(p);
    expect((await s.repos.visitorData.activePolicies()).map((x) => x.deploymentId)).toContain(o.deploymentId);
    const secret = await s.repos.visitorData.linkSecret(o.deploymentId, "first");
    expect(await (await ctx.node()).repos.visitorData.linkSecret(o.deploymentId, "second")).toBe(secret);
    expect(await s.repos.visitorData.policy(o.deploymentId)).toMatchObject({ retentionDays: 30, widgetCitations: "page" });
    await s.repos.visitorData.setPolicy(o.deploymentId, { retentionDays: null });
    expect((await s.repos.visitorData.activePolicies()).map((x) => x.deploymentId)).not.toContain(o.deploymentId);
  });

  test("erasure by email removes the visitor's chat logs, leads and mails in every conversation, and nothing else", async () => {
    const s = ctx.store();
    const o = await seedOwner(s, 1000);
    const base = { deploymentId: o.deploymentId, accountId: o.accountId };
    const email = `${uniq("visitor")}@example.com`;
    const [c1, c2, other] = [uniq("conv"), uniq("conv"), uniq("conv")];
    const t1 = await s.repos.chatLogs.record(turn({ ...base, conversationId: c1, question: "q1", promptTokens: 3 }));
    await s.repos.chatLogs.record(turn({ ...base, conversationId: c1, question: "q2", visitorEmail: email.toUpperCase() }));
    await s.repos.leads.createWithMail(
      { deploymentId: o.deploymentId, conversationId: c2, chatLogId: null, email, name: "V", message: "help", refusedQuestion: "q" },
      () => mail(),
    );
    await s.repos.chatLogs.record(turn({ ...base, conversationId: c2, question: "q3" }));
    const keep = await s.repos.chatLogs.record(turn({ ...base, conversationId: other, question: "someone else" }));
    await s.repos.leads.createWithMail(
      {
        deploymentId: o.deploymentId,
        conversationId: other,
        chatLogId: null,
        email: "other@example.com",
        name: "",
        message: "",
        refusedQuestion: "",
      },
      () => mail(),
    );
    const range = { deploymentId: o.deploymentId, fromMs: 0, toMs: Date.now() + DAY, offsetMinutes: 0 };
    const totals = (await s.repos.reports.days(range)).reduce((n, d) => n + d.questions, 0);
    const rec = await s.repos.visitorData.erase({
      accountId: o.accountId,
      deploymentIds: [o.deploymentId],
      subject: { kind: "email", email },
      subjectHash: "h".repeat(64),
      via: "test",
    });
    expect(rec).toMatchObject({ chatLogs: 3, leads: 1, mails: 1, conversations: 2, correctionsKept: 0, subjectKind: "email", via: "test" });
    expect(await s.repos.conversationLogs.conversation(o.deploymentId, c1)).toEqual([]);
    expect(await s.repos.conversationLogs.conversation(o.deploymentId, c2)).toEqual([]);
    expect(await s.repos.conversationLogs.turn(o.deploymentId, t1.chatLogId)).toBeNull();
    expect(await s.repos.conversationLogs.turn(o.deploymentId, keep.chatLogId)).not.toBeNull();
    const leads = await s.repos.leads.list(o.deploymentId);
    expect(leads.map((l) => l.email)).toEqual(["other@example.com"]);
    expect(await countOf(s, "SELECT COUNT(*) AS n FROM mail_outbox WHERE to_addr = $1 AND lead_id IS NULL", ["owner@example.com"])).toBe(0);
    expect(await countOf(s, "SELECT COUNT(*) AS n FROM mail_outbox WHERE lead_id = $1", [leads[0]?.id ?? 0])).toBe(1);
    expect(await countOf(s, "SELECT COUNT(*) AS n FROM conversations WHERE id = $1", [other])).toBe(1);
    expect((await s.repos.reports.days(range)).reduce((n, d) => n + d.questions, 0)).toBe(totals);
    expect((await s.repos.visitorData.erasures(o.accountId, 10)).map((e) => e.id)).toEqual([rec.id]);
  });

  test("erasure by conversation id removes that conversation only; a corrected turn stays as the correction's anchor", async () => {
    const s = ctx.store();
    const o = await seedOwner(s);
    const base = { deploymentId: o.deploymentId, accountId: o.accountId };
    const [c, other] = [uniq("conv"), uniq("conv")];
    const rated = await s.repos.chatLogs.record(
      turn({ ...base, conversationId: c, question: "corrected q", visitorEmail: "a@example.com" }),
    );
    await s.repos.chatLogFeedback.rate(o.deploymentId, rated.chatLogId, 0);
    await s.repos.corrections.upsert({
      deploymentId: o.deploymentId,
      chatLogId: rated.chatLogId,
      question: "corrected q",
      questionNorm: "corrected q",
      answer: "A",
    });
    await s.repos.chatLogs.record(turn({ ...base, conversationId: c, question: "plain q" }));
    await s.repos.chatLogs.record(turn({ ...base, conversationId: other, question: "other q" }));
    const rec = await s.repos.visitorData.erase({
      accountId: o.accountId,
      deploymentIds: [o.deploymentId],
      subject: { kind: "conversation", conversationId: c },
      subjectHash: "c".repeat(64),
      via: "console",
    });
    expect(rec).toMatchObject({ chatLogs: 2, leads: 0, mails: 0, conversations: 1, correctionsKept: 1 });
    expect(await s.repos.conversationLogs.conversation(o.deploymentId, c)).toEqual([]);
    const anchor = await s.repos.conversationLogs.turn(o.deploymentId, rated.chatLogId);
    expect([anchor?.question, anchor?.answer, anchor?.visitorEmail]).toEqual(["corrected q", "", null]);
    expect((await s.repos.conversationLogs.conversation(o.deploymentId, other)).length).toBe(1);
    expect((await s.repos.reports.corrections(o.deploymentId)).map((x) => x.answer)).toEqual(["A"]);
  });

  test("an answer's token history row names its deployment and question", async () => {
    const s = ctx.store();
    const o = await seedOwner(s, 100);
    await s.repos.chatLogs.record(
      turn({ deploymentId: o.deploymentId, accountId: o.accountId, question: "Opening hours?", promptTokens: 7 }),
    );
    const [row] = await s.repos.accounts.ledger(o.accountId, 1);
    expect(row).toMatchObject({
      delta: -7,
      reason: "answer",
      deploymentId: o.deploymentId,
      deploymentName: o.deploymentId,
      question: "Opening hours?",
    });
  });

  test("test questions are kept per deployment; a run is started once per key and finished with its results", async () => {
    const s = ctx.store();
    const o = await seedOwner(s);
    const tq = s.repos.testQuestions;
    const q = await tq.create({ deploymentId: o.deploymentId, question: "Hours?", history: [], kind: "answer", expectAny: ["9:00"] });
    const r2 = await tq.create({ deploymentId: o.deploymentId, question: "Unicorns?", history: [], kind: "refuse", expectAny: [] });
    expect((await tq.list(o.deploymentId)).map((x) => x.id)).toEqual([q.id, r2.id]);
    expect(
      await tq.update(o.deploymentId, q.id, { question: "Opening hours?", history: [], kind: "answer", expectAny: ["9"] }),
    ).toMatchObject({
      question: "Opening hours?",
      expectAny: ["9"],
    });
    const other = await seedOwner(s);
    expect(await tq.update(other.deploymentId, q.id, { question: "x", history: [], kind: "refuse", expectAny: [] })).toBeNull();
    expect(await tq.remove(other.deploymentId, q.id)).toBe(false);
    const key = uniq("run");
    const run = await tq.startRun(o.deploymentId, key, "training", 2);
    expect(run?.status).toBe("running");
    expect(await (await ctx.node()).repos.testQuestions.startRun(o.deploymentId, key, "training", 2)).toBeNull();
    const result = {
      runId: run?.id ?? 0,
      testQuestionId: q.id,
      question: "Opening hours?",
      kind: "answer" as const,
      verdict: "correct",
      passed: true,
      answer: "9 to 6",
      searchQuery: "opening hours",
      sources: ["hours"],
      citations: [],
    };
    await tq.finishRun(run?.id ?? 0, [
      result,
      { ...result, testQuestionId: r2.id, kind: "refuse", verdict: "answered_wrongly", passed: false },
    ]);
    expect((await tq.runs(o.deploymentId, 5))[0]).toMatchObject({ status: "done", total: 2, passed: 1 });
    expect((await tq.results(o.deploymentId, run?.id ?? 0)).map((x) => [x.testQuestionId, x.passed])).toEqual([
      [q.id, true],
      [r2.id, false],
    ]);
    expect(await tq.results(other.deploymentId, run?.id ?? 0)).toEqual([]);
    expect(await tq.remove(o.deploymentId, q.id)).toBe(true);
    expect(await tq.count(o.deploymentId)).toBe(1);
  });
});
