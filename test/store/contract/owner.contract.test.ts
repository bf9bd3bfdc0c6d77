/**
 * The owner's side — console sessions, sign-in attempts, chat logs and reports — as one contract on both engines
 * (issue 12). Reports group by day in the owner's time zone exactly as SQLite's date() does.
 */
import { expect, test } from "bun:test";
import type { ReportRange } from "../../../src/store/contract/index.ts";
import { describeStores } from "../../helpers/stores.ts";
import { seedAccount, seedOwner, turn, uniq } from "../../helpers/visitor-seed.ts";

/** SQLite's date(ms / 1000 + offset * 60, 'unixepoch'), computed in JS. */
const dayOf = (ms: number, offsetMinutes: number) =>
  new Date((Math.trunc(ms / 1000) + offsetMinutes * 60) * 1000).toISOString().slice(0, 10);
const mail = () => ({ messageId: `<${uniq("m")}@docchat>`, to: "owner@example.com", subject: "s", body: "b" });

describeStores("owner sessions and sign-in attempts", (ctx) => {
  const sessions = () => ctx.store().repos.ownerSessions;
  const attempts = () => ctx.store().repos.loginAttempts;

  test("a session is found by its hash, kept alive by touch and removed alone or with its account's others", async () => {
    const a = await seedAccount(ctx.store(), 0);
    const s = { idHash: uniq("h"), accountId: a.id, createdAt: 100, lastSeenAt: 100, expiresAt: 10_000 };
    await sessions().create(s);
    expect(await sessions().find(s.idHash)).toEqual(s);
    await sessions().touch(s.idHash, 500);
    expect(await (await ctx.node()).repos.ownerSessions.find(s.idHash)).toEqual({ ...s, lastSeenAt: 500 });
    const more = [uniq("h"), uniq("h")];
    for (const h of more) await sessions().create({ ...s, idHash: h });
    expect(await sessions().removeForAccount(a.id, s.idHash)).toBe(2);
    expect(await sessions().find(s.idHash)).not.toBeNull();
    expect(await sessions().removeForAccount(a.id)).toBe(1);
    await sessions().create({ ...s, idHash: "gone" });
    await sessions().remove("gone");
    expect(await sessions().find("gone")).toBeNull();
    await expect(sessions().create({ ...s, accountId: a.id + 10_000 })).rejects.toThrow();
  });

  test("purging drops sessions past their expiry or idle too long and counts them", async () => {
    const a = await seedAccount(ctx.store(), 0);
    const mk = async (lastSeenAt: number, expiresAt: number) => {
      const idHash = uniq("p");
      await sessions().create({ idHash, accountId: a.id, createdAt: 0, lastSeenAt, expiresAt });
      return idHash;
    };
    const live = await mk(9_500, 20_000);
    const expired = await mk(9_900, 10_000);
    const idle = await mk(8_000, 20_000);
    expect(await sessions().purge(10_000, 2_000)).toBe(2);
    expect([await sessions().find(live), await sessions().find(expired), await sessions().find(idle)].map((x) => x !== null)).toEqual([
      true,
      false,
      false,
    ]);
    await sessions().removeForAccount(a.id);
  });

  test("failed sign-ins are counted per email and address and per address since a time, with the first time", async () => {
    const ip = uniq("ip");
    const ids = [
      await attempts().record("a@example.com", ip, 100),
      await attempts().record("a@example.com", ip, 200),
      await attempts().record("b@example.com", ip, 300),
    ];
    expect(ids[1]).toBeGreaterThan(ids[0] as number);
    await attempts().record("a@example.com", uniq("ip"), 250);
    expect(await attempts().count("a@example.com", ip, 0)).toEqual({ pair: 2, pairFirst: 100, ip: 3, ipFirst: 100 });
    expect(await attempts().count("a@example.com", ip, 100)).toEqual({ pair: 1, pairFirst: 200, ip: 2, ipFirst: 200 });
    expect(await attempts().count("A@example.com", ip, 0)).toEqual({ pair: 0, pairFirst: null, ip: 3, ipFirst: 100 });
    expect(await attempts().count("a@example.com", uniq("ip"), 0)).toEqual({ pair: 0, pairFirst: null, ip: 0, ipFirst: null });
    await attempts().succeeded("a@example.com", ip);
    expect(await attempts().count("a@example.com", ip, 0)).toEqual({ pair: 0, pairFirst: null, ip: 1, ipFirst: 300 });
  });

  test("an operator clears attempts by email, by address or both, and old ones are pruned", async () => {
    const [ip1, ip2, email] = [uniq("ip"), uniq("ip"), `${uniq("c")}@example.com`];
    for (const ip of [ip1, ip1, ip2]) await attempts().record(email, ip, 1000);
    await attempts().record("x@example.com", ip1, 1000);
    expect(await attempts().clear({})).toBe(0);
    expect(await attempts().clear({ email, ip: ip1 })).toBe(2);
    expect(await attempts().clear({ email })).toBe(1);
    expect(await attempts().clear({ ip: ip1 })).toBe(1);
    await attempts().record(email, ip2, 50);
    await attempts().record(email, ip2, 5000);
    await attempts().prune(1000);
    expect(await attempts().count(email, ip2, 0)).toEqual({ pair: 1, pairFirst: 5000, ip: 1, ipFirst: 5000 });
  });
});

describeStores("owner chat logs and reports", (ctx) => {
  const repos = () => ctx.store().repos;

  test("the owner lists a deployment's chat logs newest first, a page at a time, with tokens, rating and correction", async () => {
    const o = await seedOwner(ctx.store(), 0);
    const other = await seedOwner(ctx.store(), 0);
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(
        (
          await repos().chatLogs.record(
            turn({
              ...o,
              question: `q${i}`,
              promptTokens: 10 * i,
              completionTokens: i,
              refused: i === 1,
              correctionId: i === 2 ? 99 : null,
              visitorEmail: i === 3 ? "v@example.com" : null,
              sources: [`d${i}.pdf`],
            }),
          )
        ).chatLogId,
      );
    }
    await repos().chatLogFeedback.rate(o.deploymentId, ids[3] as number, 1);
    const page = await repos().ownerChatLogs.list(o.deploymentId, { limit: 2 });
    expect(page.map((l) => l.id)).toEqual([ids[3], ids[2]] as number[]);
    expect(page[0]).toEqual({
      id: ids[3] as number,
      conversationId: page[0]?.conversationId as string,
      question: "q3",
      answer: "Yes, within 30 days.",
      sources: ["d3.pdf"],
      refused: false,
      rating: 1,
      correctionId: null,
      tokens: 33,
      visitorEmail: "v@example.com",
      createdAt: page[0]?.createdAt as number,
    });
    expect(page[1]).toMatchObject({ correctionId: 99, rating: null, tokens: 22, visitorEmail: null });
    const rest = await repos().ownerChatLogs.list(o.deploymentId, { limit: 10, beforeId: ids[2] });
    expect(rest.map((l) => ({ id: l.id, refused: l.refused }))).toEqual([
      { id: ids[1] as number, refused: true },
      { id: ids[0] as number, refused: false },
    ]);
    expect(await repos().ownerChatLogs.find(o.deploymentId, ids[1] as number)).toEqual(rest[0] ?? null);
    expect(await repos().ownerChatLogs.find(other.deploymentId, ids[1] as number)).toBeNull();
    expect(await repos().ownerChatLogs.list(other.deploymentId, { limit: 10 })).toEqual([]);
  });

  test("a report day is the turn's day in the owner's time zone, with its counts, tokens, ratings and served corrections", async () => {
    const o = await seedOwner(ctx.store(), 0);
    const t0 = Date.now();
    const logs = [];
    for (const [i, t] of [
      { refused: false, promptTokens: 5, completionTokens: 1 },
      { refused: true, promptTokens: 2, completionTokens: 0 },
      { refused: false, promptTokens: 0, completionTokens: 0, correctionId: 1 },
    ].entries()) {
      logs.push((await repos().chatLogs.record(turn({ ...o, ...t, question: `q${i}` }))).chatLogId);
    }
    await repos().chatLogFeedback.rate(o.deploymentId, logs[0] as number, 1);
    await repos().chatLogFeedback.rate(o.deploymentId, logs[1] as number, 0);
    const created = await Promise.all(logs.map(async (id) => (await repos().chatLogFeedback.findById(id))?.createdAt as number));
    for (const offsetMinutes of [-840, -330, 0, 60, 840]) {
      const range: ReportRange = { deploymentId: o.deploymentId, fromMs: t0 - 86_400_000, toMs: Date.now() + 86_400_000, offsetMinutes };
      const days = await repos().reports.days(range);
      expect(days.map((d) => d.day)).toEqual([...new Set(created.map((c) => dayOf(c, offsetMinutes)))].sort());
      const total = days.reduce(
        (s, d) => ({
          questions: s.questions + d.questions,
          answers: s.answers + d.answers,
          refusals: s.refusals + d.refusals,
          tokens: s.tokens + d.tokens,
          ratedUp: s.ratedUp + d.ratedUp,
          ratedDown: s.ratedDown + d.ratedDown,
          correctionsServed: s.correctionsServed + d.correctionsServed,
          leads: s.leads + d.leads,
        }),
        { questions: 0, answers: 0, refusals: 0, tokens: 0, ratedUp: 0, ratedDown: 0, correctionsServed: 0, leads: 0 },
      );
      expect(total).toEqual({ questions: 3, answers: 2, refusals: 1, tokens: 8, ratedUp: 1, ratedDown: 1, correctionsServed: 1, leads: 0 });
    }
    expect(await repos().reports.days({ deploymentId: o.deploymentId, fromMs: 0, toMs: t0 - 86_400_000, offsetMinutes: 0 })).toEqual([]);
  });

  test("report days split at the owner's local midnight, to the millisecond, and a day with leads only still shows", async () => {
    const o = await seedOwner(ctx.store(), 0);
    const midnight = Date.UTC(2026, 0, 2); // 2026-01-02T00:00:00Z
    const at = [midnight - 1, midnight, midnight + 30 * 60_000 - 1, midnight + 30 * 60_000, midnight + 23 * 3_600_000 + 1];
    for (const [i, t] of at.entries())
      await repos().leads.createWithMail(
        {
          deploymentId: o.deploymentId,
          conversationId: null,
          chatLogId: null,
          email: `l${i}@example.com`,
          name: "",
          message: "",
          refusedQuestion: "",
        },
        mail,
        t,
      );
    const leadsByDay = async (offsetMinutes: number, fromMs = midnight - 2 * 86_400_000, toMs = midnight + 2 * 86_400_000) =>
      (await repos().reports.days({ deploymentId: o.deploymentId, fromMs, toMs, offsetMinutes })).map((d) => [d.day, d.leads, d.questions]);
    expect(await leadsByDay(0)).toEqual([
      ["2026-01-01", 1, 0],
      ["2026-01-02", 4, 0],
    ]);
    expect(await leadsByDay(-30)).toEqual([
      ["2026-01-01", 3, 0],
      ["2026-01-02", 2, 0],
    ]);
    expect(await leadsByDay(60)).toEqual([
      ["2026-01-02", 4, 0],
      ["2026-01-03", 1, 0],
    ]);
    // the range is [from, to)
    expect(await leadsByDay(0, midnight, midnight + 30 * 60_000)).toEqual([["2026-01-02", 2, 0]]);
    for (const off of [-840, -1, 0, 1, 345, 840]) {
      const expected = new Map<string, number>();
      for (const t of at) expected.set(dayOf(t, off), (expected.get(dayOf(t, off)) ?? 0) + 1);
      expect(await leadsByDay(off)).toEqual([...expected].sort(([a], [b]) => a.localeCompare(b)).map(([d, n]) => [d, n, 0]));
    }
  });

  test("top questions group case and surrounding spaces (ASCII only, as SQLite), most asked first, then by text", async () => {
    const o = await seedOwner(ctx.store(), 0);
    const asked: [string, boolean][] = [
      ["Refund?", false],
      [" refund? ", true],
      ["REFUND?", false],
      ["Été?", true],
      ["été?", true],
      ["opening hours", false],
      ["Opening hours", true],
      ["Banana", false],
      ["apple", false],
    ];
    for (const [question, refused] of asked) await repos().chatLogs.record(turn({ ...o, question, refused }));
    const range: ReportRange = { deploymentId: o.deploymentId, fromMs: 0, toMs: Date.now() + 60_000, offsetMinutes: 0 };
    expect(await repos().reports.topQuestions(range, { refusedOnly: false, limit: 10 })).toEqual([
      { question: " refund? ", count: 3 },
      { question: "Opening hours", count: 2 },
      { question: "Banana", count: 1 },
      { question: "apple", count: 1 },
      { question: "Été?", count: 1 },
      { question: "été?", count: 1 },
    ]);
    expect(await repos().reports.topQuestions(range, { refusedOnly: false, limit: 2 })).toEqual([
      { question: " refund? ", count: 3 },
      { question: "Opening hours", count: 2 },
    ]);
    expect(await repos().reports.topQuestions(range, { refusedOnly: true, limit: 10 })).toEqual([
      { question: " refund? ", count: 1 },
      { question: "Opening hours", count: 1 },
      { question: "Été?", count: 1 },
      { question: "été?", count: 1 },
    ]);
    expect(await repos().reports.topQuestions({ ...range, toMs: 1 }, { refusedOnly: false, limit: 10 })).toEqual([]);
  });

  test("the corrections report lists a deployment's corrections most served first, then most recently changed", async () => {
    const o = await seedOwner(ctx.store(), 0);
    const log = async () => (await repos().chatLogs.record(turn(o))).chatLogId;
    const a = await repos().corrections.upsert(
      { deploymentId: o.deploymentId, chatLogId: await log(), question: "A?", questionNorm: "a", answer: "a" },
      100,
    );
    const b = await repos().corrections.upsert(
      { deploymentId: o.deploymentId, chatLogId: await log(), question: "B?", questionNorm: "b", answer: "b" },
      200,
    );
    const c = await repos().corrections.upsert(
      { deploymentId: o.deploymentId, chatLogId: await log(), question: "C?", questionNorm: "c", answer: "c" },
      300,
    );
    for (let i = 0; i < 2; i++) await repos().corrections.serve(o.deploymentId, "b");
    await repos().corrections.deactivate(o.deploymentId, c.chatLogId, 400);
    const rows = await repos().reports.corrections(o.deploymentId);
    expect(rows).toEqual([
      { id: b.id, chatLogId: b.chatLogId, question: "B?", answer: "b", active: true, servedCount: 2, updatedAt: 200 },
      { id: c.id, chatLogId: c.chatLogId, question: "C?", answer: "c", active: false, servedCount: 0, updatedAt: 400 },
      { id: a.id, chatLogId: a.chatLogId, question: "A?", answer: "a", active: true, servedCount: 0, updatedAt: 100 },
    ]);
    expect(await repos().reports.corrections((await seedOwner(ctx.store(), 0)).deploymentId)).toEqual([]);
  });

  test("corrections served as often and changed at the same time are listed in the order of their normalised question", async () => {
    const o = await seedOwner(ctx.store(), 0);
    for (const norm of ["m", "z", "a", "q"]) {
      const { chatLogId } = await repos().chatLogs.record(turn(o));
      await repos().corrections.upsert(
        { deploymentId: o.deploymentId, chatLogId, question: norm.toUpperCase(), questionNorm: norm, answer: norm },
        100,
      );
    }
    expect((await repos().reports.corrections(o.deploymentId)).map((c) => c.question)).toEqual(["A", "M", "Q", "Z"]);
  });
});
