import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { stem } from "../../src/rag/terms.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { type OwnerClient, signedInOwner } from "./owner-client.ts";

/**
 * Content gaps and test questions through the real server: 200 questions asked through the chat API, 40 of them
 * refused around 4 themes; the report shows those 4 groups first; a document that answers one theme moves its
 * questions to answered; test questions run after the training and show what changed.
 */
setDefaultTimeout(120_000);

const HANDBOOK = [
  "Acme Bikes handbook",
  "",
  "Opening hours: the Berlin shop is open Monday to Friday from 9:00 to 18:00 and on Saturday from 10:00 to 14:00.",
  "",
  "Repairs: a standard repair takes two working days. We repair every bike brand, including cargo bikes.",
  "",
  "Returns: unused items can be returned within 30 days with the receipt for a full refund.",
  "",
  "Delivery: orders are shipped by courier within Germany in three to five working days.",
].join("\n");

const ANSWERED = [
  "What are the opening hours of the Berlin shop?",
  "When is the shop open on Saturday?",
  "Are cargo bikes repaired?",
  "Do you repair cargo bikes?",
  "Can unused items be returned within 30 days?",
  "Do I need the receipt for a refund?",
  "Is a receipt needed for a full refund?",
  "Which bike brands do you repair?",
];

/** Four themes the handbook says nothing about, ten wordings each. */
const THEMES: Record<string, string[]> = {
  park: [
    "Is there parking at the shop?",
    "Where can I park my car?",
    "Do you have customer parking?",
    "Parking near the store?",
    "Can I park in front of the shop?",
    "Is parking free for customers?",
    "Any parking spaces nearby?",
    "Where do customers park?",
    "Do you offer parking for vans?",
    "Is there a parking garage close by?",
  ],
  gift: [
    "Do you sell gift cards?",
    "Can I buy a gift card?",
    "Gift card for a friend?",
    "How much can a gift card be worth?",
    "Do gift cards expire?",
    "Can I pay with a gift card online?",
    "Are digital gift cards available?",
    "Where do I redeem a gift card?",
    "Can I combine two gift cards?",
    "Is a gift card refundable?",
  ],
  warranty: [
    "What warranty do new bikes have?",
    "How long is the warranty on frames?",
    "Does the warranty cover the battery?",
    "Is there a warranty on used bikes?",
    "How do I claim warranty?",
    "Warranty for electric motors?",
    "Does the warranty transfer to a new owner?",
    "Is rust covered by the warranty?",
    "Extended warranty available?",
    "Warranty on paint damage?",
  ],
  rent: [
    "Can I rent a bike for a day?",
    "Do you rent tandems?",
    "How much does it cost to rent an e-bike?",
    "Can tourists rent bikes here?",
    "Rent a cargo trailer?",
    "Do you rent bikes for children?",
    "Can I rent a bike for a week?",
    "Is a deposit needed to rent?",
    "Do you rent helmets too?",
    "Can groups rent several bikes?",
  ],
};

const PARKING_DOC = [
  "Parking for customers",
  "",
  "Customers park for free in the courtyard behind the shop. The parking spaces are open to cars and vans during opening hours,",
  "and a public parking garage is two minutes away on Hauptstrasse. There are parking spaces nearby on the street too.",
].join("\n");

let server: TestServer;
let owner: OwnerClient;
let dep = "";
let key = "";

async function ask(question: string): Promise<{ refused: boolean }> {
  const r = await fetch(`${server.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: dep, messages: [{ role: "user", content: question }] }),
  });
  if (r.status !== 200) throw new Error(`${r.status} ${await r.text()}`);
  return (await r.json()) as { refused: boolean };
}

async function upload(name: string, text: string): Promise<void> {
  const form = new FormData();
  form.append("file", new File([text], name));
  const up = await owner.post(`/deployments/${dep}/documents`, form);
  expect(up.status).toBe(202);
  for (let i = 0; i < 200; i++) {
    const r = await owner.get<{ data: { status: string }[] }>(`/deployments/${dep}/documents`);
    if (r.body.data.every((d) => d.status === "completed")) return;
    await Bun.sleep(100);
  }
  throw new Error("training did not finish");
}

interface Gaps {
  questions: number;
  gap_questions: number;
  groups: {
    terms: string[];
    count: number;
    answered_now: number;
    wordings: { question: string; now_answered: boolean | null; chat_log_ids: number[] }[];
  }[];
}

beforeAll(async () => {
  // 200 questions within a minute: the per-key limit (60 a minute) scaled up
  server = await startTestServer({ DOCCHAT_RATE_LIMIT_SCALE: "10" });
  owner = (await signedInOwner(server, { tokens: 1_000_000 })).client;
  const created = await owner.post<{ deployment: { id: string }; api_key: string }>("/deployments", { name: "Acme Bikes" });
  dep = created.body.deployment.id;
  key = created.body.api_key;
  await owner.patch(`/deployments/${dep}`, { published: true });
  await upload("handbook.txt", HANDBOOK);
});
afterAll(() => server.stop());

describe("content gaps", () => {
  test("of 200 questions, the 40 refused around 4 themes are the report's first 4 groups", async () => {
    let refused = 0;
    for (let i = 0; i < 160; i++) if ((await ask(ANSWERED[i % ANSWERED.length] as string)).refused) refused++;
    expect(refused).toBe(0);
    for (const qs of Object.values(THEMES)) for (const q of qs) expect((await ask(q)).refused).toBe(true);
    const r = await owner.get<Gaps>(`/deployments/${dep}/gaps`);
    expect(r.status).toBe(200);
    expect(r.body.questions).toBe(200);
    expect(r.body.gap_questions).toBe(40);
    const top = r.body.groups.slice(0, 4);
    // each group is labelled by the terms its questions share ("gift card": both words, in either order)
    for (const theme of Object.keys(THEMES)) expect(top.filter((g) => g.terms.includes(stem(theme)))).toHaveLength(1);
    for (const g of top) expect(g.count).toBe(10);
    expect(r.body.groups.reduce((n, g) => n + g.count, 0)).toBe(40);
  });

  test("after a document that answers one theme is uploaded, that group's questions get answers and the others don't", async () => {
    await upload("parking.txt", PARKING_DOC);
    const r = await owner.get<Gaps>(`/deployments/${dep}/gaps`);
    const parking = r.body.groups.find((g) => g.terms.includes(stem("park")));
    expect(parking?.answered_now).toBeGreaterThanOrEqual(8);
    for (const g of r.body.groups.filter((x) => !x.terms.includes(stem("park")))) expect(g.answered_now).toBe(0);
    // re-asking through the dry pipeline logged nothing
    expect(r.body.questions).toBe(200);
  });

  test("answering a group writes one correction per wording, served to visitors", async () => {
    const r = await owner.get<Gaps>(`/deployments/${dep}/gaps`);
    const gift = r.body.groups.find((g) => g.terms.includes(stem("gift")));
    const ids = (gift?.wordings ?? []).flatMap((w) => w.chat_log_ids);
    const a = await owner.post<{ corrections: number }>(`/deployments/${dep}/gaps/answer`, {
      chat_log_ids: ids,
      answer: "Gift cards are sold in the shop.",
    });
    expect(a.body.corrections).toBe(10);
    const res = (await (
      await fetch(`${server.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: dep, messages: [{ role: "user", content: "Do you sell gift cards?" }] }),
      })
    ).json()) as { choices: { message: { content: string } }[] };
    expect(res.choices[0]?.message.content).toBe("Gift cards are sold in the shop.");
    const after = await owner.get<Gaps>(`/deployments/${dep}/gaps`);
    expect(after.body.groups.find((g) => g.terms.includes(stem("gift")))).toBeUndefined();
  });
});

describe("test questions", () => {
  test("questions run after a training, pass or fail, and the console sees what changed since the run before", async () => {
    const add = (body: object) => owner.post<{ id: number }>(`/deployments/${dep}/tests`, body);
    expect((await add({ question: "Do you repair cargo bikes?", kind: "answer", expect_any: ["cargo bikes"] })).status).toBe(201);
    await add({ question: "Where do customers park?", kind: "answer", expect_any: ["courtyard"] });
    await add({ question: "Do you rent tandems?", kind: "refuse" });
    await add({ question: "Can I rent a bike for a week?", kind: "answer", expect_any: ["rental"] });
    expect((await add({ question: "x", kind: "answer", expect_any: [] })).status).toBe(400);
    await server.services.testQuestions.tick();
    type Summary = {
      latest: { trigger: string; passed: number; total: number };
      results: { question: string; passed: boolean; verdict: string; change: string }[];
    };
    const first = (await owner.get<Summary>(`/deployments/${dep}/tests`)).body;
    expect(first.latest).toMatchObject({ trigger: "training", total: 4, passed: 3 });
    expect(first.results.map((x) => [x.verdict, x.change])).toEqual([
      ["correct", "new"],
      ["correct", "new"],
      ["refused_right", "new"],
      ["refused", "new"],
    ]);
    // the same training is not run twice
    expect(await server.services.testQuestions.tick()).toEqual([]);
    await upload(
      "rental.txt",
      "Bike rental\n\nYou can rent a bike for a week or a day; rental includes a helmet. We rent tandems as well.",
    );
    await server.services.testQuestions.tick();
    const second = (await owner.get<Summary>(`/deployments/${dep}/tests`)).body;
    expect(second.latest).toMatchObject({ trigger: "training", total: 4 });
    const byQ = new Map(second.results.map((x) => [x.question, x]));
    expect(byQ.get("Can I rent a bike for a week?")).toMatchObject({ passed: true, change: "fixed" });
    expect(byQ.get("Do you rent tandems?")).toMatchObject({ passed: false, change: "broke" });
    expect(byQ.get("Do you repair cargo bikes?")).toMatchObject({ passed: true, change: "same" });
    const manual = await owner.post<{ trigger: string; total: number; passed: number }>(`/deployments/${dep}/tests/run`);
    expect(manual.status).toBe(200);
    expect(manual.body).toMatchObject({ trigger: "manual", total: 4 });
  });
});
