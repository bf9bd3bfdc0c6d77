/**
 * `docchat eval` and its owner API twin (issue 18): cases in the dev set's format go through the same pipeline as
 * the API — follow-ups with their history — and come back judged, overall and per style and kind; nothing is
 * logged or charged. Real server on port 0, real documents, the real CLI in a child process.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixture, sharedDoc } from "../helpers/paths.ts";
import { runCliProcess, startTestServer, type TestServer, tempDir } from "../helpers/server.ts";
import { type OwnerClient, signedInOwner } from "../owner/owner-client.ts";

setDefaultTimeout(60_000);

const CASES = [
  {
    id: "own-museum-open",
    kind: "answer",
    style: "own",
    question: "When does the harbour museum open?",
    expect_any: ["10am"],
    doc: "harbour",
  },
  {
    id: "fu-lighthouse",
    kind: "answer",
    style: "follow-up",
    question: "And the lighthouse?",
    history: [
      { role: "user", content: "When was the harbour museum built?" },
      { role: "assistant", content: "I don't know." },
    ],
    expect_any: ["1871"],
    doc: "harbour",
  },
  {
    id: "table-arizona",
    kind: "answer",
    style: "table",
    question: "How many Montgomery GI Bill active duty recipients were there in Arizona?",
    expect_any: ["26,822"],
    doc: "FY09_EDU_Recipients_by_State",
  },
  // a wrong expectation on purpose: the report must call the answer wrong, not correct
  {
    id: "own-wrong-expectation",
    kind: "answer",
    style: "own",
    question: "How much does an adult ticket cost?",
    expect_any: ["12 euros"],
    doc: "harbour",
  },
  { id: "refuse-off-mars", kind: "refuse", style: "paraphrase", question: "How many moons does Mars have?", expect_any: [], doc: "" },
  {
    id: "refuse-on-shop",
    kind: "refuse",
    style: "own",
    question: "Who is the director of the harbour museum?",
    expect_any: [],
    doc: "harbour",
  },
];

let srv: TestServer;
let owner: OwnerClient;
let dep = "";

beforeAll(async () => {
  srv = await startTestServer({ DOCCHAT_TRAIN_WAIT_MS: "60000" });
  owner = (await signedInOwner(srv, { tokens: 5000 })).client;
  dep = (await owner.post<{ deployment: { id: string } }>("/deployments", { name: "Eval" })).body.deployment.id;
  await owner.patch(`/deployments/${dep}`, { published: true });
  for (const [path, name] of [
    [fixture("answers/harbour.txt"), "harbour.txt"],
    [sharedDoc("csv/csvkit/FY09_EDU_Recipients_by_State.csv"), "FY09_EDU_Recipients_by_State.csv"],
  ] as const) {
    const form = new FormData();
    form.append("file", new File([await Bun.file(path).arrayBuffer()], name));
    expect((await owner.post(`/deployments/${dep}/documents`, form)).status).toBeLessThan(300);
  }
  for (let i = 0; i < 200; i++) {
    const docs = await owner.get<{ data: { status: string }[] }>(`/deployments/${dep}/documents`);
    if (docs.body.data.every((d) => d.status === "completed")) break;
    await Bun.sleep(100);
  }
});
afterAll(() => srv.stop());

interface Report {
  overall: Record<string, number>;
  by_style: Record<string, Record<string, number>>;
  by_kind: Record<string, Record<string, number>>;
  cases: { id: string; verdict: string; search_query: string; context_hit: boolean; answer: string; sources: string[] }[];
}

describe("eval through the owner API", () => {
  test("each case is judged, and the report is split per style and kind; nothing is logged or charged", async () => {
    const before = (await owner.get<{ tokens: number }>("/account")).body.tokens;
    const r = await owner.post<Report>(`/deployments/${dep}/eval`, { cases: CASES });
    expect(r.status).toBe(200);
    const verdict = Object.fromEntries(r.body.cases.map((c) => [c.id, c.verdict]));
    expect(verdict).toEqual({
      "own-museum-open": "correct",
      "fu-lighthouse": "correct",
      "table-arizona": "correct",
      "own-wrong-expectation": "wrong",
      "refuse-off-mars": "refused_right",
      "refuse-on-shop": "refused_right",
    });
    // the follow-up was searched as a standalone question
    expect(r.body.cases.find((c) => c.id === "fu-lighthouse")?.search_query).toBe("When was the lighthouse built?");
    expect(r.body.overall).toMatchObject({ cases: 6, answer_cases: 4, refuse_cases: 2, correct: 0.75, wrong: 0.25, refusals_right: 1 });
    // the wrong expectation is in no passage either
    expect(r.body.overall.context_recall).toBe(0.75);
    expect(r.body.overall.source_precision).toBe(1);
    expect(Object.keys(r.body.by_style).sort()).toEqual(["follow-up", "own", "paraphrase", "table"]);
    expect(Object.keys(r.body.by_kind).sort()).toEqual(["answer", "refuse (off-topic)", "refuse (on-topic)"]);
    expect(r.body.by_style.own).toMatchObject({ cases: 3, correct: 0.5, refusals_right: 1 });
    expect((await owner.get<{ data: unknown[] }>(`/deployments/${dep}/chat-logs`)).body.data).toEqual([]);
    expect((await owner.get<{ tokens: number }>("/account")).body.tokens).toBe(before);
  });

  test("a malformed case is a 400 that names it", async () => {
    const r = await owner.post<{ error: { code: string; param: string } }>(`/deployments/${dep}/eval`, {
      cases: [CASES[0], { id: "x", kind: "answer", question: "Where?", expect_any: [] }],
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: "bad_request", param: "cases[1].expect_any" });
    const dup = await owner.post<{ error: { param: string } }>(`/deployments/${dep}/eval`, { cases: [CASES[0], CASES[0]] });
    expect(dup.body.error.param).toBe("cases[1].id");
  });
});

describe("docchat eval", () => {
  test("prints the per-style table and the failed cases, or the whole report with --json", async () => {
    const dir = tempDir();
    try {
      const file = join(dir, "cases.json");
      writeFileSync(file, JSON.stringify(CASES));
      const human = await runCliProcess(["eval", dep, file, "--data", srv.dataDir]);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain("| **overall** | 6 | 75 % | 25 % |");
      expect(human.stdout).toContain("| style: table | 1 | 100 % |");
      expect(human.stdout).toContain("[wrong] own-wrong-expectation");
      expect(human.stdout).not.toContain("[correct]");
      const json = await runCliProcess(["eval", dep, file, "--data", srv.dataDir, "--json"]);
      const report = JSON.parse(json.stdout) as Report;
      expect(report.cases).toHaveLength(6);
      expect(report.overall.correct).toBe(0.75);
      const missing = await runCliProcess(["eval", dep, join(dir, "nope.json"), "--data", srv.dataDir]);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain("Cannot read the cases file");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
