/**
 * Accounts, conversations and chat turns: one contract, both engines (issue 12). The concurrency tests open a second
 * store on the same database — a second node — and race them: balances end exact and never below zero.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { PgStore } from "../../../src/store/postgres/pg-store.ts";
import { debitAccount } from "../../../src/store/postgres/repos/accounts.pg.ts";
import { createPgChatLogsRepo } from "../../../src/store/postgres/repos/chat-logs.pg.ts";
import { describeStores, openStore } from "../../helpers/stores.ts";
import { seedAccount, seedOwner, turn, uniq } from "../../helpers/visitor-seed.ts";

describeStores("accounts", (ctx) => {
  const accounts = () => ctx.store().repos.accounts;

  test("an account is created with its grant in the ledger and found by id or by email in any letter case", async () => {
    const email = `${uniq("Mixed")}@Example.com`;
    const a = await accounts().create({ email, passwordHash: "h1", tokens: 500 });
    expect(a).toEqual({ id: a.id, email, tokens: 500, disabled: false, createdAt: a.createdAt });
    expect(typeof a.id).toBe("number");
    expect(Math.abs(a.createdAt - Date.now())).toBeLessThan(60_000);
    expect(await accounts().findById(a.id)).toEqual(a);
    expect(await accounts().findByEmail(email.toUpperCase())).toEqual(a);
    expect(await accounts().findByEmail(email.toLowerCase())).toEqual(a);
    expect(await accounts().ledger(a.id)).toEqual([
      { delta: 500, balance: 500, reason: "grant", createdAt: a.createdAt, deploymentId: null, deploymentName: null, question: null },
    ]);
  });

  test("an account without tokens has no grant in its ledger, and unknown ids and emails are null", async () => {
    const a = await accounts().create({ email: `${uniq("zero")}@example.com`, passwordHash: null, tokens: 0 });
    expect(a.tokens).toBe(0);
    expect(await accounts().ledger(a.id)).toEqual([]);
    expect(await accounts().findById(a.id + 10_000)).toBeNull();
    expect(await accounts().findByEmail("nobody@example.com")).toBeNull();
    expect(await accounts().passwordHash("nobody@example.com")).toBeNull();
  });

  test("email letter case is ignored for A to Z only, as SQLite's NOCASE: other letters must match exactly", async () => {
    const email = `ÉMILE.${uniq("x")}@Example.com`;
    const a = await accounts().create({ email, passwordHash: "h", tokens: 0 });
    expect((await accounts().findByEmail(email))?.id).toBe(a.id);
    expect((await accounts().findByEmail(email.replace("Example", "EXAMPLE").replace("ÉMILE", "ÉmIlE")))?.id).toBe(a.id);
    expect(await accounts().findByEmail(email.replace("ÉMILE", "émile"))).toBeNull();
    expect((await accounts().passwordHash(email.toLowerCase().replace("émile", "Émile")))?.id).toBe(a.id);
  });

  test("a second account with the same email in another letter case is refused", async () => {
    const email = `${uniq("dup")}@example.com`;
    await accounts().create({ email, passwordHash: null, tokens: 0 });
    await expect(accounts().create({ email: email.toUpperCase(), passwordHash: null, tokens: 0 })).rejects.toThrow();
  });

  test("the password hash is read by email and replaced by id", async () => {
    const email = `${uniq("pw")}@example.com`;
    const a = await accounts().create({ email, passwordHash: null, tokens: 0 });
    expect(await accounts().passwordHash(email)).toEqual({ id: a.id, hash: null });
    await accounts().setPasswordHash(a.id, "$argon2id$new");
    expect(await accounts().passwordHash(email.toUpperCase())).toEqual({ id: a.id, hash: "$argon2id$new" });
  });

  test("disabling and enabling an account reads back as a boolean", async () => {
    const a = await seedAccount(ctx.store(), 0);
    await accounts().setDisabled(a.id, true);
    expect((await accounts().findById(a.id))?.disabled).toBe(true);
    await accounts().setDisabled(a.id, false);
    expect((await accounts().findById(a.id))?.disabled).toBe(false);
  });

  test("setting the balance records the difference in the ledger, newest first, and a missing account throws", async () => {
    const a = await seedAccount(ctx.store(), 100);
    expect((await accounts().setTokens(a.id, 250)).tokens).toBe(250);
    const set = await accounts().setTokens(a.id, 40, "refund");
    expect(set).toEqual({ ...a, tokens: 40 });
    expect((await accounts().ledger(a.id)).map(({ delta, balance, reason }) => ({ delta, balance, reason }))).toEqual([
      { delta: -210, balance: 40, reason: "refund" },
      { delta: 150, balance: 250, reason: "set" },
      { delta: 100, balance: 100, reason: "grant" },
    ]);
    expect((await accounts().ledger(a.id, 1)).length).toBe(1);
    await expect(accounts().setTokens(a.id + 10_000, 5)).rejects.toThrow("account vanished");
    await expect(accounts().setTokens(a.id, -1)).rejects.toThrow();
    expect((await accounts().findById(a.id))?.tokens).toBe(40);
  });

  test("a debit takes what it can, floors the balance at zero and writes only real debits to the ledger", async () => {
    const a = await seedAccount(ctx.store(), 10);
    expect(await accounts().debit(a.id, 4, null)).toBe(6);
    expect(await accounts().debit(a.id, 0, null)).toBe(6);
    expect(await accounts().debit(a.id, -5, null)).toBe(6);
    expect(await accounts().debit(a.id, 50, 7)).toBe(0);
    expect(await accounts().debit(a.id, 3, null)).toBe(0);
    expect((await accounts().ledger(a.id)).map(({ delta, balance, reason }) => ({ delta, balance, reason }))).toEqual([
      { delta: -6, balance: 0, reason: "answer" },
      { delta: -4, balance: 6, reason: "answer" },
      { delta: 10, balance: 10, reason: "grant" },
    ]);
    expect(await accounts().debit(a.id + 10_000, 5, null)).toBe(0);
  });

  test("two nodes debiting one account at once end at the exact balance, never below zero", async () => {
    const a = await seedAccount(ctx.store(), 1000);
    const other = await ctx.node();
    const nodes = [ctx.store(), other];
    // 2 nodes × 40 debits of 7 = 560 < 1000: every debit lands
    await Promise.all(nodes.flatMap((s) => Array.from({ length: 40 }, () => s.repos.accounts.debit(a.id, 7, null))));
    expect((await other.repos.accounts.findById(a.id))?.tokens).toBe(1000 - 560);
    // 2 nodes × 40 debits of 13 = 1040 > 440 left: the balance reaches exactly zero and the ledger takes exactly 440
    const balances = await Promise.all(nodes.flatMap((s) => Array.from({ length: 40 }, () => s.repos.accounts.debit(a.id, 13, null))));
    expect(Math.min(...balances)).toBe(0);
    expect((await accounts().findById(a.id))?.tokens).toBe(0);
    const ledger = await accounts().ledger(a.id, 1000);
    expect(ledger.reduce((sum, l) => sum + l.delta, 0)).toBe(0);
    expect(ledger.every((l) => l.balance >= 0)).toBe(true);
    // each ledger row's balance is the one before it minus its own debit: no two debits saw the same balance
    const chronological = ledger.toReversed();
    for (let i = 1; i < chronological.length; i++) {
      expect(chronological[i]?.balance).toBe((chronological[i - 1]?.balance as number) + (chronological[i]?.delta as number));
    }
  });
});

describeStores("token reservations (N8)", (ctx) => {
  const later = () => Date.now() + 60_000;

  test("a reservation holds what is free, down to its minimum; a release gives it back; an expired one stops counting", async () => {
    const accounts = ctx.store().repos.accounts;
    const a = await seedAccount(ctx.store(), 100);
    const first = await accounts.reserve(a.id, 70, 10, later());
    expect(first?.amount).toBe(70);
    expect((await accounts.reserve(a.id, 70, 10, later()))?.amount).toBe(30);
    expect(await accounts.reserve(a.id, 70, 1, later())).toBeNull();
    await accounts.release(first?.id as number);
    expect((await accounts.reserve(a.id, 50, 50, later()))?.amount).toBe(50);
    // held tokens are not spent: the balance and the ledger are untouched until a turn settles
    expect((await accounts.findById(a.id))?.tokens).toBe(100);
    const b = await seedAccount(ctx.store(), 10);
    expect(await accounts.reserve(b.id, 10, 10, Date.now() - 1)).not.toBeNull();
    expect((await accounts.reserve(b.id, 10, 10, later()))?.amount).toBe(10);
  });

  test("a recorded turn settles its reservation: the debit, its ledger row and the release in one transaction", async () => {
    const repos = ctx.store().repos;
    const o = await seedOwner(ctx.store(), 100);
    const held = await repos.accounts.reserve(o.accountId, 60, 10, later());
    expect(await repos.accounts.reserve(o.accountId, 60, 50, later())).toBeNull();
    const r = await repos.chatLogs.record(turn({ ...o, promptTokens: 20, completionTokens: 5, reservationId: held?.id }));
    expect(r).toMatchObject({ balance: 75, debited: 25 });
    expect((await repos.accounts.ledger(o.accountId))[0]).toMatchObject({ delta: -25, balance: 75, reason: "answer" });
    // the 60 held are free again: 75 left to hold
    expect((await repos.accounts.reserve(o.accountId, 80, 75, later()))?.amount).toBe(75);
  });

  test("two nodes reserving at once never hold more than the balance", async () => {
    const a = await seedAccount(ctx.store(), 100);
    const other = await ctx.node();
    const nodes = [ctx.store(), other];
    const got = await Promise.all(
      nodes.flatMap((s) => Array.from({ length: 15 }, () => s.repos.accounts.reserve(a.id, 10, 10, Date.now() + 60_000))),
    );
    const held = got.filter((g) => g !== null);
    expect(held.length).toBe(10);
    expect(held.reduce((n, g) => n + (g?.amount ?? 0), 0)).toBe(100);
  });
});

describeStores("conversations and chat turns", (ctx) => {
  const repos = () => ctx.store().repos;

  test("a conversation belongs to the deployment that started it; another deployment can neither see nor bump it", async () => {
    const a = await seedOwner(ctx.store());
    const b = await seedOwner(ctx.store());
    const id = uniq("conv");
    expect(await repos().conversations.exists(a.deploymentId, id)).toBe(false);
    expect(await repos().conversations.touch(a.deploymentId, id, 1000)).toBe(true);
    expect(await repos().conversations.touch(a.deploymentId, id, 2000)).toBe(true);
    expect(await repos().conversations.exists(a.deploymentId, id)).toBe(true);
    expect(await repos().conversations.touch(b.deploymentId, id)).toBe(false);
    expect(await repos().conversations.exists(b.deploymentId, id)).toBe(false);
  });

  test("recording a turn starts its conversation, charges its tokens and returns the log id and the balance", async () => {
    const o = await seedOwner(ctx.store(), 100);
    const t = turn({ ...o, promptTokens: 30, completionTokens: 12, sources: ["a.pdf", "b.docx"] });
    const r = await repos().chatLogs.record(t);
    expect(r.balance).toBe(58);
    expect(typeof r.chatLogId).toBe("number");
    expect(await repos().conversations.exists(o.deploymentId, t.conversationId)).toBe(true);
    expect((await repos().accounts.ledger(o.accountId))[0]).toMatchObject({ delta: -42, balance: 58, reason: "answer" });
    const free = await repos().chatLogs.record(turn({ ...o, conversationId: t.conversationId }));
    expect(free.balance).toBeNull();
    expect(free.chatLogId).toBeGreaterThan(r.chatLogId);
    const broke = await repos().chatLogs.record(turn({ ...o, promptTokens: 500 }));
    expect(broke.balance).toBe(0);
    // an account gone meanwhile: the turn is kept, with nothing left to charge
    expect((await repos().chatLogs.record(turn({ ...o, accountId: o.accountId + 10_000, promptTokens: 5 }))).balance).toBe(0);
  });

  test("a turn naming another deployment's conversation is still recorded and charged, and leaves that conversation alone", async () => {
    const a = await seedOwner(ctx.store(), 0);
    const b = await seedOwner(ctx.store(), 50);
    const conversationId = uniq("conv");
    await repos().conversations.touch(a.deploymentId, conversationId, 1000);
    const r = await repos().chatLogs.record(turn({ ...b, conversationId, promptTokens: 5 }));
    expect(r.balance).toBe(45);
    expect(await repos().conversations.exists(b.deploymentId, conversationId)).toBe(false);
    expect((await repos().chatLogs.thread(b.deploymentId, conversationId, 5)).map((t) => t.id)).toEqual([r.chatLogId]);
    expect(await repos().chatLogs.thread(a.deploymentId, conversationId, 5)).toEqual([]);
  });

  test("a thread gives its last turns oldest first, only within its deployment", async () => {
    const o = await seedOwner(ctx.store(), 0);
    const other = await seedOwner(ctx.store(), 0);
    const conversationId = uniq("conv");
    const ids: number[] = [];
    for (const [i, q] of ["one", "two", "three", "four"].entries()) {
      ids.push(
        (await repos().chatLogs.record(turn({ ...o, conversationId, question: q, searchQuery: `${q}?`, refused: i === 2 }))).chatLogId,
      );
    }
    await repos().chatLogs.record(turn({ ...o, question: "elsewhere" }));
    const thread = await repos().chatLogs.thread(o.deploymentId, conversationId, 3);
    expect(thread).toEqual([
      { id: ids[1] as number, question: "two", searchQuery: "two?", answer: "Yes, within 30 days.", refused: false },
      { id: ids[2] as number, question: "three", searchQuery: "three?", answer: "Yes, within 30 days.", refused: true },
      { id: ids[3] as number, question: "four", searchQuery: "four?", answer: "Yes, within 30 days.", refused: false },
    ]);
    expect((await repos().chatLogs.thread(o.deploymentId, conversationId, 10)).map((x) => x.question)).toEqual([
      "one",
      "two",
      "three",
      "four",
    ]);
    expect(await repos().chatLogs.thread(other.deploymentId, conversationId, 10)).toEqual([]);
  });

  test("a turn that cannot be recorded is not charged", async () => {
    const o = await seedOwner(ctx.store(), 100);
    await expect(repos().chatLogs.record(turn({ ...o, deploymentId: "no-such-deployment", promptTokens: 10 }))).rejects.toThrow();
    expect((await repos().accounts.findById(o.accountId))?.tokens).toBe(100);
    expect((await repos().accounts.ledger(o.accountId)).length).toBe(1);
  });

  test("two nodes recording turns of one conversation at once keep every turn and charge each exactly once", async () => {
    const o = await seedOwner(ctx.store(), 1000);
    const other = await ctx.node();
    const conversationId = uniq("conv");
    const results = await Promise.all(
      [ctx.store(), other].flatMap((s, n) =>
        Array.from({ length: 15 }, (_, i) =>
          s.repos.chatLogs.record(turn({ ...o, conversationId, question: `q${n}-${i}`, promptTokens: 9, completionTokens: 1 })),
        ),
      ),
    );
    expect(new Set(results.map((r) => r.chatLogId)).size).toBe(30);
    expect((await repos().accounts.findById(o.accountId))?.tokens).toBe(1000 - 300);
    expect((await other.repos.chatLogs.thread(o.deploymentId, conversationId, 100)).length).toBe(30);
  });

  test("two nodes recording more turns than the balance pays for charge exactly the balance, and every turn is kept", async () => {
    const o = await seedOwner(ctx.store(), 95);
    const other = await ctx.node();
    const results = await Promise.all(
      [ctx.store(), other].flatMap((s) => Array.from({ length: 10 }, () => s.repos.chatLogs.record(turn({ ...o, promptTokens: 10 })))),
    );
    expect(results.filter((r) => r.balance === 0).length).toBeGreaterThanOrEqual(11);
    expect((await repos().accounts.findById(o.accountId))?.tokens).toBe(0);
    const debits = (await repos().accounts.ledger(o.accountId, 100)).filter((l) => l.reason === "answer");
    expect(debits.reduce((sum, l) => sum - l.delta, 0)).toBe(95);
    expect(debits.map((l) => l.delta).sort((a, b) => a - b)).toEqual([-10, -10, -10, -10, -10, -10, -10, -10, -10, -5]);
    expect((await repos().ownerChatLogs.list(o.deploymentId, { limit: 100 })).length).toBe(20);
  });
});

describe("a chat turn inside a caller's PostgreSQL transaction", () => {
  let opened: Awaited<ReturnType<typeof openStore>>;
  let store: PgStore;
  beforeAll(async () => {
    opened = await openStore("postgres");
    store = opened.store as PgStore;
  }, 60_000);
  afterAll(() => opened.dispose());

  test("is recorded and charged with the caller's other writes, or not at all when the caller rolls back", async () => {
    const o = await seedOwner(store, 100);
    const chatLogs = createPgChatLogsRepo(store.sql);
    const t = turn({ ...o, promptTokens: 30 });
    await expect(
      store.sql.begin(async (tx) => {
        expect((await chatLogs.record(t, tx)).balance).toBe(70);
        expect(await debitAccount(tx, o.accountId, 20, null)).toBe(50);
        throw new Error("the caller fails later");
      }),
    ).rejects.toThrow("the caller fails later");
    expect((await store.repos.accounts.findById(o.accountId))?.tokens).toBe(100);
    expect(await store.repos.conversations.exists(o.deploymentId, t.conversationId)).toBe(false);
    expect(await store.repos.chatLogs.thread(o.deploymentId, t.conversationId, 10)).toEqual([]);
    await store.sql.begin(async (tx) => {
      await chatLogs.record(t, tx);
      await debitAccount(tx, o.accountId, 20, null);
    });
    expect((await store.repos.accounts.findById(o.accountId))?.tokens).toBe(50);
    expect((await store.repos.chatLogs.thread(o.deploymentId, t.conversationId, 10)).length).toBe(1);
  });
});
