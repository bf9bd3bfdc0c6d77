import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Services } from "../../src/app.ts";
import { isAppError } from "../../src/errors/index.ts";
import { normaliseQuestion } from "../../src/visitor/normalise-question.ts";
import { insertChatLog } from "../helpers/chat-logs.ts";
import { startTestServices } from "../helpers/server.ts";
import { describeEngines } from "../helpers/stores.ts";

let seq = 0;

async function deployment(s: Services) {
  const account = await s.accounts.create({ email: `corr${++seq}@example.com` });
  return (await s.deployments.create({ accountId: account.id, name: "Shop", published: true })).deployment.id;
}

describe("question normalisation", () => {
  test("ignores case, punctuation and runs of whitespace", () => {
    expect(normaliseQuestion("  What are your OPENING   hours?! ")).toBe("what are your opening hours");
    expect(normaliseQuestion("What's the price…")).toBe(normaliseQuestion("whats the price"));
    expect(normaliseQuestion("Ｆｕｌｌ-width, ÉTÉ")).toBe("fullwidth été");
    expect(normaliseQuestion("?!...")).toBe("");
  });
});

describeEngines("the corrections service", (engine) => {
  let s: Services;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ services: s, close } = await startTestServices({}, { engine }));
  }, 60_000);
  afterAll(() => close());

  test("an answer rated 0 appears on the open list with its question, answer and sources", async () => {
    const dep = await deployment(s);
    const log = await insertChatLog(s, { deploymentId: dep, question: "Do you ship abroad?", answer: "Maybe.", sources: ["shipping"] });
    await insertChatLog(s, { deploymentId: dep, question: "Unrated?" });
    await s.feedback.rate(dep, log.id, 0);
    const items = await s.corrections.list(dep);
    expect(items.map((i) => [i.turn.id, i.turn.question, i.turn.answer, i.turn.sources, i.correction])).toEqual([
      [log.id, "Do you ship abroad?", "Maybe.", ["shipping"], null],
    ]);
  });

  test("findFor returns the written correction for the same question in other wording and counts each serving", async () => {
    const dep = await deployment(s);
    const log = await insertChatLog(s, { deploymentId: dep, question: "Do you ship abroad?" });
    await s.feedback.rate(dep, log.id, 0);
    const c = await s.corrections.set(log.id, "Yes, to all EU countries.");
    expect(await s.corrections.findFor(dep, "do you ship  ABROAD")).toEqual({
      correctionId: c.id,
      answer: "Yes, to all EU countries.",
      chatLogId: log.id,
      question: "Do you ship abroad?",
    });
    expect((await s.corrections.findFor(dep, "Do you ship abroad?!"))?.answer).toBe("Yes, to all EU countries.");
    expect((await s.corrections.list(dep))[0]?.correction?.servedCount).toBe(2);
  });

  test("findFor returns null for a different question, an empty one or another deployment", async () => {
    const dep = await deployment(s);
    const other = await deployment(s);
    const log = await insertChatLog(s, { deploymentId: dep, question: "Do you ship abroad?" });
    await s.corrections.set(log.id, "Yes.");
    expect(await s.corrections.findFor(dep, "Do you ship to the moon?")).toBeNull();
    expect(await s.corrections.findFor(dep, "???")).toBeNull();
    expect(await s.corrections.findFor(other, "Do you ship abroad?")).toBeNull();
  });

  test("setting again replaces the answer of the same chat log", async () => {
    const dep = await deployment(s);
    const log = await insertChatLog(s, { deploymentId: dep, question: "Price?" });
    const first = await s.corrections.set(log.id, "10 EUR");
    const second = await s.corrections.set(log.id, "12 EUR");
    expect(second.id).toBe(first.id);
    expect((await s.corrections.findFor(dep, "price"))?.answer).toBe("12 EUR");
  });

  test("a newer correction for the same question supersedes the older one", async () => {
    const dep = await deployment(s);
    const a = await insertChatLog(s, { deploymentId: dep, question: "Opening hours?" });
    const b = await insertChatLog(s, { deploymentId: dep, question: "opening hours" });
    await s.corrections.set(a.id, "9 to 5");
    await s.corrections.set(b.id, "8 to 6");
    expect((await s.corrections.findFor(dep, "Opening hours"))?.answer).toBe("8 to 6");
    await s.feedback.rate(dep, a.id, 0);
    expect((await s.corrections.list(dep))[0]?.correction).toMatchObject({ answer: "9 to 5", active: false });
  });

  test("a later rating of 1 takes the answer off the open list but keeps its correction in service", async () => {
    const dep = await deployment(s);
    const log = await insertChatLog(s, { deploymentId: dep, question: "Refunds?" });
    await s.feedback.rate(dep, log.id, 0);
    await s.corrections.set(log.id, "Within 30 days.");
    await s.feedback.rate(dep, log.id, 1);
    expect(await s.corrections.list(dep)).toEqual([]);
    expect((await s.corrections.findFor(dep, "refunds"))?.answer).toBe("Within 30 days.");
  });

  test("removing a correction stops it being served", async () => {
    const dep = await deployment(s);
    const log = await insertChatLog(s, { deploymentId: dep, question: "Parking?" });
    await s.corrections.set(log.id, "Behind the shop.");
    expect(await s.corrections.remove(log.id)).toBe(true);
    expect(await s.corrections.findFor(dep, "parking")).toBeNull();
    expect(await s.corrections.remove(log.id)).toBe(false);
  });

  test("set refuses an empty answer, an unknown chat log and, when scoped, another deployment's chat log", async () => {
    const dep = await deployment(s);
    const other = await deployment(s);
    const log = await insertChatLog(s, { deploymentId: dep, question: "Parking?" });
    const codeOf = async (f: () => Promise<unknown>) => {
      try {
        await f();
        return "none";
      } catch (e) {
        return isAppError(e) ? e.code : "other";
      }
    };
    expect(await codeOf(() => s.corrections.set(log.id, "   "))).toBe("bad_request");
    expect(await codeOf(() => s.corrections.set(99_999_999, "x"))).toBe("not_found");
    expect(await codeOf(() => s.corrections.set(log.id, "x", { deploymentId: other }))).toBe("not_found");
    expect(await codeOf(() => s.feedback.rate(other, log.id, 0))).toBe("not_found");
  });
});
