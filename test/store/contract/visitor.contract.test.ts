/**
 * What visitors leave behind — ratings, corrections, leads and the mail outbox — as one contract on both engines
 * (issue 12), including the outbox shared by two nodes: a mail is claimed by one of them only while its lease runs.
 */
import { expect, test } from "bun:test";
import type { NewTurn, Store } from "../../../src/store/contract/index.ts";
import { describeStores } from "../../helpers/stores.ts";
import { seedOwner, turn, uniq } from "../../helpers/visitor-seed.ts";

const logTurn = async (store: Store, o: { accountId: number; deploymentId: string }, extra: Partial<NewTurn> = {}) =>
  (await store.repos.chatLogs.record(turn({ ...o, ...extra }))).chatLogId;

describeStores("chat log feedback", (ctx) => {
  const feedback = () => ctx.store().repos.chatLogFeedback;

  test("a turn is found by id alone or within its deployment, with its sources parsed and no rating yet", async () => {
    const o = await seedOwner(ctx.store());
    const other = await seedOwner(ctx.store());
    const conversationId = uniq("conv");
    const id = await logTurn(ctx.store(), o, {
      conversationId,
      question: "Refunds?",
      answer: "30 days.",
      sources: ["policy.pdf"],
      refused: true,
    });
    const found = await feedback().findById(id);
    expect(found).toEqual({
      id,
      deploymentId: o.deploymentId,
      conversationId,
      question: "Refunds?",
      answer: "30 days.",
      sources: ["policy.pdf"],
      refused: true,
      rating: null,
      ratedAt: null,
      createdAt: found?.createdAt as number,
    });
    expect(await feedback().findScoped(o.deploymentId, id)).toEqual(found);
    expect(await feedback().findScoped(other.deploymentId, id)).toBeNull();
    expect(await feedback().findById(id + 10_000)).toBeNull();
  });

  test("a rating is stored only within the turn's deployment and the latest one wins", async () => {
    const o = await seedOwner(ctx.store());
    const other = await seedOwner(ctx.store());
    const id = await logTurn(ctx.store(), o);
    expect(await feedback().rate(other.deploymentId, id, 0, 5)).toBe(false);
    expect(await feedback().rate(o.deploymentId, id, 1, 10)).toBe(true);
    expect(await feedback().rate(o.deploymentId, id, 0, 20)).toBe(true);
    expect(await feedback().findById(id)).toMatchObject({ rating: 0, ratedAt: 20 });
    expect(await feedback().rate(o.deploymentId, id + 10_000, 1)).toBe(false);
  });

  test("the latest refusal of a conversation is found, optionally no later than a given turn", async () => {
    const o = await seedOwner(ctx.store());
    const conversationId = uniq("conv");
    const r1 = await logTurn(ctx.store(), o, { conversationId, refused: true, question: "first" });
    const a = await logTurn(ctx.store(), o, { conversationId, question: "answered" });
    const r2 = await logTurn(ctx.store(), o, { conversationId, refused: true, question: "second" });
    expect((await feedback().latestRefusal(o.deploymentId, conversationId))?.id).toBe(r2);
    expect((await feedback().latestRefusal(o.deploymentId, conversationId, a))?.id).toBe(r1);
    expect(await feedback().latestRefusal(o.deploymentId, conversationId, r1 - 1)).toBeNull();
    expect(await feedback().latestRefusal(o.deploymentId, uniq("conv"))).toBeNull();
  });

  test("unhelpful answers are those whose latest rating is 0, most recently rated first, up to the limit", async () => {
    const o = await seedOwner(ctx.store());
    const [a, b, c, d] = [
      await logTurn(ctx.store(), o),
      await logTurn(ctx.store(), o),
      await logTurn(ctx.store(), o),
      await logTurn(ctx.store(), o),
    ];
    await feedback().rate(o.deploymentId, a as number, 0, 300);
    await feedback().rate(o.deploymentId, b as number, 0, 100);
    await feedback().rate(o.deploymentId, c as number, 0, 300);
    await feedback().rate(o.deploymentId, d as number, 0, 200);
    await feedback().rate(o.deploymentId, d as number, 1, 400);
    expect((await feedback().listUnhelpful(o.deploymentId)).map((t) => t.id)).toEqual([c, a, b] as number[]);
    expect((await feedback().listUnhelpful(o.deploymentId, 2)).map((t) => t.id)).toEqual([c, a] as number[]);
  });

  test("sources that are not a JSON list of names read as none", async () => {
    const o = await seedOwner(ctx.store());
    const id = await logTurn(ctx.store(), o, { sources: ["ok.pdf", 3 as unknown as string] });
    expect((await feedback().findById(id))?.sources).toEqual(["ok.pdf"]);
  });
});

describeStores("corrections", (ctx) => {
  const corrections = () => ctx.store().repos.corrections;
  const input = (deploymentId: string, chatLogId: number, answer: string, questionNorm = "do you ship abroad") => ({
    deploymentId,
    chatLogId,
    question: "Do you ship abroad?",
    questionNorm,
    answer,
  });

  test("a correction is created active, replaced in place for the same chat log and found by its normalised question", async () => {
    const o = await seedOwner(ctx.store());
    const log = await logTurn(ctx.store(), o);
    const c = await corrections().upsert(input(o.deploymentId, log, "Yes."), 1000);
    expect(c).toEqual({
      id: c.id,
      deploymentId: o.deploymentId,
      chatLogId: log,
      question: "Do you ship abroad?",
      questionNorm: "do you ship abroad",
      answer: "Yes.",
      active: true,
      servedCount: 0,
      createdAt: 1000,
      updatedAt: 1000,
    });
    const again = await corrections().upsert(input(o.deploymentId, log, "Yes, to the EU."), 2000);
    expect(again).toEqual({ ...c, answer: "Yes, to the EU.", updatedAt: 2000 });
    expect(await corrections().findForChatLog(log)).toEqual(again);
    expect(await corrections().findActive(o.deploymentId, "do you ship abroad")).toEqual(again);
    expect(await corrections().findActive(o.deploymentId, "other question")).toBeNull();
    expect(await corrections().findForChatLog(log + 10_000)).toBeNull();
  });

  test("a corrected question far longer than an index entry is stored, found and served like any other", async () => {
    const o = await seedOwner(ctx.store());
    const long = `do you ship ${"abroad and further ".repeat(400)}`.trim();
    const c = await corrections().upsert(input(o.deploymentId, await logTurn(ctx.store(), o), "Yes.", long), 1000);
    expect((await corrections().findActive(o.deploymentId, long))?.id).toBe(c.id);
    expect((await corrections().serve(o.deploymentId, long))?.servedCount).toBe(1);
    expect(await corrections().findActive(o.deploymentId, `${long}!`)).toBeNull();
  });

  test("correcting another turn of the same question deactivates the earlier correction", async () => {
    const o = await seedOwner(ctx.store());
    const first = await corrections().upsert(input(o.deploymentId, await logTurn(ctx.store(), o), "9 to 5"), 1000);
    const second = await corrections().upsert(input(o.deploymentId, await logTurn(ctx.store(), o), "8 to 6"), 2000);
    expect((await corrections().findActive(o.deploymentId, "do you ship abroad"))?.id).toBe(second.id);
    expect(await corrections().findForChatLog(first.chatLogId)).toMatchObject({ active: false, updatedAt: 2000 });
    // re-saving the first makes it the active one again
    await corrections().upsert(input(o.deploymentId, first.chatLogId, "9 to 5"), 3000);
    expect((await corrections().findActive(o.deploymentId, "do you ship abroad"))?.id).toBe(first.id);
    expect((await corrections().findForChatLog(second.chatLogId))?.active).toBe(false);
  });

  test("serving counts each use of the active correction; deactivating it stops serving, once", async () => {
    const o = await seedOwner(ctx.store());
    const other = await seedOwner(ctx.store());
    const log = await logTurn(ctx.store(), o);
    await corrections().upsert(input(o.deploymentId, log, "Yes."));
    expect((await corrections().serve(o.deploymentId, "do you ship abroad"))?.servedCount).toBe(1);
    expect((await corrections().serve(o.deploymentId, "do you ship abroad"))?.servedCount).toBe(2);
    expect(await corrections().serve(other.deploymentId, "do you ship abroad")).toBeNull();
    expect(await corrections().deactivate(other.deploymentId, log)).toBe(false);
    expect(await corrections().deactivate(o.deploymentId, log, 5000)).toBe(true);
    expect(await corrections().deactivate(o.deploymentId, log)).toBe(false);
    expect(await corrections().serve(o.deploymentId, "do you ship abroad")).toBeNull();
    expect(await corrections().findForChatLog(log)).toMatchObject({ active: false, servedCount: 2, updatedAt: 5000 });
  });

  test("two nodes correcting the same question at once leave exactly one correction active, and every serving is counted", async () => {
    const o = await seedOwner(ctx.store());
    const other = await ctx.node();
    const logs = await Promise.all(Array.from({ length: 8 }, () => logTurn(ctx.store(), o)));
    const saved = await Promise.all(
      logs.map((log, i) => (i % 2 ? other : ctx.store()).repos.corrections.upsert(input(o.deploymentId, log, `answer ${i}`))),
    );
    const states = await Promise.all(saved.map((c) => corrections().findForChatLog(c.chatLogId)));
    expect(states.filter((c) => c?.active).length).toBe(1);
    const active = await corrections().findActive(o.deploymentId, "do you ship abroad");
    expect(active).not.toBeNull();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? other : ctx.store()).repos.corrections.serve(o.deploymentId, "do you ship abroad")),
    );
    expect((await corrections().findForChatLog(active?.chatLogId as number))?.servedCount).toBe(20);
  });
});

describeStores("leads and the mail outbox", (ctx) => {
  const repos = () => ctx.store().repos;
  const draft = (to = "owner@example.com") => ({ messageId: `<${uniq("m")}@docchat>`, to, subject: "New lead", body: "hello" });
  const lead = (deploymentId: string, o: { chatLogId?: number | null; email?: string } = {}) => ({
    deploymentId,
    conversationId: uniq("conv"),
    chatLogId: o.chatLogId ?? null,
    email: o.email ?? "visitor@example.com",
    name: "Vera",
    message: "Call me",
    refusedQuestion: "Do you ship to Mars?",
  });

  test("a lead is stored with its notification mail, which the composer sees with the lead's id", async () => {
    const o = await seedOwner(ctx.store());
    const seen: number[] = [];
    const d = draft();
    const l = await repos().leads.createWithMail(
      lead(o.deploymentId, { chatLogId: 42 }),
      (x) => {
        seen.push(x.id);
        return d;
      },
      1234,
    );
    expect(seen).toEqual([l.id]);
    expect(l).toEqual({ id: l.id, ...lead(o.deploymentId, { chatLogId: 42 }), conversationId: l.conversationId, createdAt: 1234 });
    const mail = (await repos().outbox.list()).find((m) => m.leadId === l.id);
    expect(mail).toMatchObject({
      messageId: d.messageId,
      to: d.to,
      subject: d.subject,
      body: d.body,
      status: "pending",
      attempts: 0,
      nextAttemptAt: 1234,
      createdAt: 1234,
      lastError: null,
      sentAt: null,
      sentVia: null,
    });
    expect((await repos().leads.list(o.deploymentId))[0]).toEqual({
      ...l,
      mail: { status: "pending", attempts: 0, lastError: null, sentAt: null, sentVia: null },
    });
  });

  test("a lead whose mail cannot be queued is not kept, nor is a mail whose composer fails", async () => {
    const o = await seedOwner(ctx.store());
    const d = draft();
    await repos().leads.createWithMail(lead(o.deploymentId), () => d);
    await expect(repos().leads.createWithMail(lead(o.deploymentId, { email: "second@example.com" }), () => d)).rejects.toThrow();
    await expect(
      repos().leads.createWithMail(lead(o.deploymentId, { email: "third@example.com" }), () => {
        throw new Error("composer failed");
      }),
    ).rejects.toThrow("composer failed");
    expect((await repos().leads.list(o.deploymentId)).map((l) => l.email)).toEqual(["visitor@example.com"]);
  });

  test("the lead already recorded for a refusal is found by email in any letter case, within its deployment", async () => {
    const o = await seedOwner(ctx.store());
    const other = await seedOwner(ctx.store());
    const first = await repos().leads.createWithMail(lead(o.deploymentId, { chatLogId: 7, email: "Vera@Example.com" }), () => draft());
    await repos().leads.createWithMail(lead(o.deploymentId, { chatLogId: 7, email: "vera@example.com" }), () => draft());
    expect((await repos().leads.findForRefusal(o.deploymentId, 7, "VERA@example.COM"))?.id).toBe(first.id);
    expect(await repos().leads.findForRefusal(o.deploymentId, 8, "vera@example.com")).toBeNull();
    expect(await repos().leads.findForRefusal(other.deploymentId, 7, "vera@example.com")).toBeNull();
  });

  test("leads list newest first, a page at a time, each with the state of its latest mail", async () => {
    const o = await seedOwner(ctx.store());
    const made = [];
    for (let i = 0; i < 5; i++)
      made.push(await repos().leads.createWithMail(lead(o.deploymentId, { email: `v${i}@example.com` }), () => draft()));
    const ids = made.map((l) => l.id).reverse();
    expect((await repos().leads.list(o.deploymentId)).map((l) => l.id)).toEqual(ids);
    const page1 = await repos().leads.list(o.deploymentId, { limit: 2 });
    expect(page1.map((l) => l.id)).toEqual(ids.slice(0, 2));
    const page2 = await repos().leads.list(o.deploymentId, { limit: 2, beforeId: page1.at(-1)?.id });
    expect(page2.map((l) => l.id)).toEqual(ids.slice(2, 4));
    // the latest mail of a lead decides what the owner sees
    const newest = made.at(-1)?.id as number;
    const mailId = (await repos().outbox.list({ limit: -1 })).find((m) => m.leadId === newest)?.id as number;
    await repos().outbox.markRetry(mailId, 99, "connection refused");
    await repos().outbox.enqueue({ ...draft(), leadId: newest });
    const again = (await repos().outbox.list({ limit: -1 })).filter((m) => m.leadId === newest).at(-1)?.id as number;
    await repos().outbox.markSent(again, "smtp", 555);
    expect((await repos().leads.list(o.deploymentId, { limit: 1 }))[0]?.mail).toEqual({
      status: "sent",
      attempts: 0,
      lastError: null,
      sentAt: 555,
      sentVia: "smtp",
    });
    expect((await repos().leads.list(o.deploymentId, { limit: 2 }))[1]?.mail?.status).toBe("pending");
  });
});

describeStores("the mail outbox", (ctx) => {
  const repos = () => ctx.store().repos;
  const draft = () => ({ messageId: `<${uniq("m")}@docchat>`, to: "owner@example.com", subject: "New lead", body: "hello" });

  test("the outbox gives the next due mail, oldest first, leased, and none before it is due", async () => {
    const other = await ctx.node();
    const base = 10 ** 13;
    const a = await repos().outbox.enqueue({ ...draft(), leadId: null }, base + 20);
    const b = await repos().outbox.enqueue({ ...draft(), leadId: null }, base + 10);
    expect(await repos().outbox.claimNext(base + 5, base + 1000)).toBeNull();
    const first = await repos().outbox.claimNext(base + 30, base + 1000);
    expect(first).toMatchObject({ id: b, status: "sending", attempts: 1, nextAttemptAt: base + 1000 });
    const second = await other.repos.outbox.claimNext(base + 30, base + 1500);
    expect(second?.id).toBe(a);
    expect(await repos().outbox.claimNext(base + 999, base + 2000)).toBeNull();
    // a lease that ran out (the sender died) gives the mail back, same Message-ID, one more attempt
    const again = await other.repos.outbox.claimNext(base + 1000, base + 5000);
    expect(again).toMatchObject({ id: b, messageId: first?.messageId, attempts: 2 });
    await repos().outbox.markSent(b, "smtp");
    await repos().outbox.markSent(a, "smtp");
  });

  test("retries, dead letters and their revival keep the mail's state as the worker sets it", async () => {
    const id = await repos().outbox.enqueue({ ...draft(), leadId: null }, 0);
    expect(await repos().outbox.findById(id)).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: 0 });
    await repos().outbox.markRetry(id, 3000, `x${"e".repeat(600)}`);
    const retried = await repos().outbox.findById(id);
    expect(retried).toMatchObject({ status: "pending", nextAttemptAt: 3000 });
    expect(retried?.lastError?.length).toBe(500);
    await repos().outbox.markDead(id, "gave up");
    expect(await repos().outbox.findById(id)).toMatchObject({ status: "dead", lastError: "gave up" });
    expect((await repos().outbox.list({ status: "dead" })).map((m) => m.id)).toContain(id);
    const revived = await repos().outbox.retryDead(7000);
    expect(revived).toBeGreaterThanOrEqual(1);
    expect(await repos().outbox.findById(id)).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: 7000 });
    expect(await repos().outbox.retryDead()).toBe(0);
    await repos().outbox.markSent(id, "log", 8000);
    expect(await repos().outbox.findById(id)).toMatchObject({ status: "sent", sentAt: 8000, sentVia: "log", lastError: null });
    expect(await repos().outbox.findById(id + 10_000)).toBeNull();
  });

  test("the outbox lists by id, optionally by status, up to a limit", async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await repos().outbox.enqueue({ ...draft(), leadId: null }, 2 * 10 ** 13));
    const all = await repos().outbox.list({ limit: -1 });
    expect(all.map((m) => m.id)).toEqual([...all.map((m) => m.id)].sort((x, y) => x - y));
    expect(all.map((m) => m.id)).toEqual(expect.arrayContaining(ids));
    expect((await repos().outbox.list({ limit: 2 })).length).toBe(2);
    expect((await repos().outbox.list({ status: "sending" })).every((m) => m.status === "sending")).toBe(true);
    for (const id of ids) await repos().outbox.markSent(id, "log");
  });

  test("two nodes polling the outbox at once never claim the same mail while its lease runs", async () => {
    const other = await ctx.node();
    const at = 3 * 10 ** 13;
    const ids = new Set<number>();
    for (let i = 0; i < 20; i++) ids.add(await repos().outbox.enqueue({ ...draft(), leadId: null }, at));
    const poll = async (s: Store) => {
      const got: number[] = [];
      for (;;) {
        const m = await s.repos.outbox.claimNext(at + 1, at + 60_000);
        if (!m) return got;
        got.push(m.id);
      }
    };
    const claims = (await Promise.all([poll(ctx.store()), poll(other), poll(ctx.store()), poll(other)])).flat();
    expect(claims.length).toBe(20);
    expect(new Set(claims)).toEqual(ids);
    expect((await repos().outbox.list({ status: "sending", limit: -1 })).filter((m) => ids.has(m.id)).every((m) => m.attempts === 1)).toBe(
      true,
    );
  });
});

describeStores("free text with a NUL character", (ctx) => {
  /** PostgreSQL's text can't hold U+0000: it is kept as U+FFFD there (the one documented difference), SQLite keeps it. */
  const same = (stored: string | null | undefined, sent: string) =>
    expect(stored?.replaceAll("\0", "\uFFFD")).toBe(sent.replaceAll("\0", "\uFFFD"));

  test("a visitor's question, a lead, its mail and a sign-in email with a NUL are stored and found again, never refused", async () => {
    const o = await seedOwner(ctx.store(), 100);
    const conversationId = uniq("conv\0");
    const question = "Refund\0 policy?";
    const { chatLogId } = await ctx
      .store()
      .repos.chatLogs.record(turn({ ...o, conversationId, question, answer: "No\0.", refused: true, promptTokens: 1 }));
    same((await ctx.store().repos.chatLogs.thread(o.deploymentId, conversationId, 5))[0]?.question, question);
    same((await ctx.store().repos.chatLogFeedback.latestRefusal(o.deploymentId, conversationId))?.answer, "No\0.");
    expect(await ctx.store().repos.conversations.exists(o.deploymentId, conversationId)).toBe(true);
    const lead = await ctx.store().repos.leads.createWithMail(
      {
        deploymentId: o.deploymentId,
        conversationId,
        chatLogId,
        email: "v\0@example.com",
        name: "V\0",
        message: "m\0",
        refusedQuestion: question,
      },
      () => ({ messageId: `<${uniq("m")}@docchat>`, to: "owner@example.com", subject: "Lead\0", body: question }),
    );
    same((await ctx.store().repos.leads.findForRefusal(o.deploymentId, chatLogId, "V\0@example.com"))?.refusedQuestion, question);
    same((await ctx.store().repos.outbox.list({ limit: -1 })).find((m) => m.leadId === lead.id)?.body, question);
    await ctx
      .store()
      .repos.corrections.upsert({ deploymentId: o.deploymentId, chatLogId, question, questionNorm: "refund\0 policy", answer: "Yes\0" });
    same((await ctx.store().repos.corrections.serve(o.deploymentId, "refund\0 policy"))?.answer, "Yes\0");
    const ip = uniq("ip");
    await ctx.store().repos.loginAttempts.record("owner\0@example.com", ip, 10);
    expect((await ctx.store().repos.loginAttempts.count("owner\0@example.com", ip, 0)).pair).toBe(1);
    expect(await ctx.store().repos.accounts.findByEmail("owner\0@example.com")).toBeNull();
  });
});
