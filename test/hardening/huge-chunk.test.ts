/**
 * Security review round 3, N2: a 1-row × 200,000-column CSV became one 3.2 MB chunk; questions that hit it held
 * the event loop for seconds and sent 3.2 MB to the model each. Now every chunk is bounded at ingest, a hit is
 * read only up to PASSAGE_MAX_CHARS (for chunks indexed before the bound), and what goes to a model is cut to
 * its context window. How long the loop is held is measured in bench/huge-chunk.bench.ts, not asserted here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chunkCapTokens, DEFAULT_CHUNK_OPTIONS } from "../../src/ingest/chunk.ts";
import { PASSAGE_MAX_CHARS } from "../../src/rag/retrieve.ts";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.ts";
import { startTestServer, type TestServer, useTestServer } from "../helpers/server.ts";
import { sqliteDb } from "../helpers/test-sql.ts";

const COLUMNS = 200_000;
const wideCsv = () =>
  `${["id", ...Array.from({ length: COLUMNS - 1 }, (_, i) => `c${i + 1}`)].join(",")}\n${[
    "row-one",
    ...Array.from({ length: COLUMNS - 1 }, (_, i) => `v${i + 1}`),
  ].join(",")}\n`;

const ask = (srv: TestServer, key: string, question: string, signal?: AbortSignal) =>
  fetch(`${srv.url}/api/v1/chat/completions-with-sources`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "x", messages: [{ role: "user", content: question }] }),
    signal,
  });

describe("a CSV row wider than the chunk budget (extractive answers)", () => {
  const srv = useTestServer("sqlite");

  test("a 1-row × 200,000-column CSV is stored as bounded chunks that each name the row, and a question finds its cell", async () => {
    const { apiKey, deploymentId } = await srv.seed();
    const form = new FormData();
    form.set("file", new File([wideCsv()], "wide.csv", { type: "text/csv" }));
    form.set("train", "false");
    const r = await fetch(`${srv.url}/api/v1/documents`, { method: "POST", headers: { authorization: `Bearer ${apiKey}` }, body: form });
    expect(r.status).toBe(201);
    const { id } = (await r.json()) as { id: string };
    await srv.services.documents.train(deploymentId);
    expect(await srv.services.documents.waitFor([id], 120_000)).toBe(true);
    const stats = sqliteDb(srv.services)
      .query<{ n: number; longest: number; keyed: number }, [string]>(
        "SELECT COUNT(*) AS n, MAX(length(text)) AS longest, SUM(text LIKE 'id: row-one; %') AS keyed FROM chunks WHERE document_id = ?",
      )
      .get(id);
    expect(stats?.n).toBeGreaterThan(100);
    expect(stats?.keyed).toBe(stats?.n);
    expect(stats?.longest).toBeLessThanOrEqual(chunkCapTokens(DEFAULT_CHUNK_OPTIONS.maxTokens) * 4);
    const answer = await ask(srv, apiKey, "What is c150000?");
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { choices: { message: { content: string } }[]; chunks: { text: string }[] };
    expect(body.chunks.some((c) => c.text.includes("c150000: v150000"))).toBe(true);
    // whichever cells the answer quotes, it names the row they belong to
    expect(body.choices[0]?.message.content).toContain("row-one");
  }, 180_000);
});

describe("a data dir indexed before the bound, holding a 3 MB chunk (with a model)", () => {
  let srv: TestServer;
  let upstream: FakeUpstream;
  let tenant: { apiKey: string; deploymentId: string };
  let other: { apiKey: string; deploymentId: string };
  beforeAll(async () => {
    upstream = startFakeUpstream({ mode: { kind: "hang", stage: "before-first-token" } });
    srv = await startTestServer({ DOCCHAT_LLM_URL: upstream.url, DOCCHAT_LLM_MODEL: "fake-model", DOCCHAT_LLM_TIMEOUT_MS: "600000" });
    tenant = await srv.seed();
    other = await srv.seed();
    // what an earlier version stored: one prepared chunk of 3 MB, indexed as it is by the training worker
    const huge = Array.from({ length: 200_000 }, (_, i) => `metric${i}: ${i}`).join("; ");
    const ids: string[] = [];
    for (const t of [tenant, other]) {
      const text = t === tenant ? `region: north; ${huge}` : "region: south; revenue: 12 million; staff: 40";
      const doc = await srv.services.repos.documents.insert({
        id: `doc_huge_${t.deploymentId}`,
        deploymentId: t.deploymentId,
        name: "wide.csv",
        kind: "csv",
        contentHash: "h",
        size: text.length,
        chunks: JSON.stringify({ ord: 0, text, headingPath: "", tokenCount: 1 }),
        pages: null,
        queue: true,
        replaceOnTrain: false,
      });
      ids.push(doc.id);
      await srv.services.repos.training.refreshStatus(t.deploymentId);
    }
    srv.services.training.kick();
    expect(await srv.services.documents.waitFor(ids, 60_000)).toBe(true);
    expect((await srv.services.repos.documents.get(ids[0] as string))?.chunkCount).toBe(1);
  }, 120_000);
  afterAll(async () => {
    await srv.stop();
    await upstream.close();
  });

  test("while a question over it waits for the model, /health and another tenant's question are answered; the model got a bounded prompt", async () => {
    const first = new AbortController();
    const pending = ask(srv, tenant.apiKey, "What is the north region metric5?", first.signal).catch(() => null);
    const deadline = Date.now() + 60_000;
    while (upstream.calls.length === 0 && Date.now() < deadline) await Bun.sleep(20);
    expect(upstream.calls).toHaveLength(1);
    const sent = JSON.stringify(upstream.calls[0]?.body ?? {});
    expect(sent).toContain("metric5");
    // the context window (4096 tokens by default) bounds the prompt: far from the 3 MB chunk
    expect(sent.length).toBeLessThan(4096 * 6);
    // the first question is still waiting for the model; the loop serves everyone else meanwhile
    expect((await fetch(`${srv.url}/health`)).status).toBe(200);
    upstream.setMode({ kind: "reply", text: "Forty staff." });
    const second = await ask(srv, other.apiKey, "How many staff in the south region?");
    expect(second.status).toBe(200);
    expect(((await second.json()) as { chunks: { text: string }[] }).chunks[0]?.text).toContain("staff: 40");
    first.abort();
    await pending;
  }, 120_000);

  test("hits are read up to PASSAGE_MAX_CHARS, so a visitor gets a bounded passage back", async () => {
    upstream.setMode({ kind: "reply", text: "Five." });
    const r = await ask(srv, tenant.apiKey, "What is the north region metric5?");
    expect(r.status).toBe(200);
    const chunks = ((await r.json()) as { chunks: { text: string }[] }).chunks;
    expect(chunks.length).toBeGreaterThan(0);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(PASSAGE_MAX_CHARS);
  });
});
