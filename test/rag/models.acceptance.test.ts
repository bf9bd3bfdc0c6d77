/**
 * Issue 11's acceptance, through the real server on port 0 and the real CLI, against a fake OpenAI-compatible
 * embeddings + rerank server that is a real HTTP server on 127.0.0.1 (test/helpers/fake-model-server.ts: a
 * synonym table plus hashing, so "dose" and "mg/day" land close; rerank scores from the same function).
 */
import { afterAll, afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { configFor, createServices } from "../../src/app.ts";
import { REFUSAL_TEXT } from "../../src/chat/refusal.ts";
import { createLogger } from "../../src/log.ts";
import { type FakeModelServer, fakeRelevance, startFakeModelServer } from "../helpers/fake-model-server.ts";
import { runCliProcess, startTestServer, type TestServer, tempDir } from "../helpers/server.ts";
import { testSql } from "../helpers/test-sql.ts";

setDefaultTimeout(60_000);

const noModels = tempDir("docchat-no-models-");
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
afterAll(() => rmSync(noModels, { recursive: true, force: true }));

const DOCS: [string, string][] = [
  [
    "storage.txt",
    "Sitagliptin tablets: store sitagliptin below 25 °C in the original pack. Sitagliptin packs must be kept dry. Sitagliptin comes in packs of 28.",
  ],
  ["diabetes-medicines.txt", "Sitagliptin 100 mg/day, taken once, with or without food."],
  ["returns.txt", "Unopened packs can be returned within 30 days for a full refund of the price paid."],
  ["opening-hours.txt", "The pharmacy counter is open Monday to Saturday from 8 am to 6 pm."],
];

function fakeServer(o: Parameters<typeof startFakeModelServer>[0] = {}): FakeModelServer {
  const s = startFakeModelServer(o);
  cleanup.push(() => s.close());
  return s;
}

const embeddingsEnv = (s: FakeModelServer, extra: Record<string, string> = {}) => ({
  DOCCHAT_EMBEDDER: "auto",
  DOCCHAT_MODELS: noModels,
  DOCCHAT_EMBEDDINGS_URL: s.url,
  DOCCHAT_EMBEDDINGS_MODEL: "nomic-embed-text",
  DOCCHAT_EMBEDDINGS_RETRIES: "0",
  DOCCHAT_TRAIN_WAIT_MS: "0",
  ...extra,
});

async function server(env: Record<string, string>, dataDir?: string): Promise<TestServer> {
  const s = await startTestServer({ DOCCHAT_MODELS: noModels, ...env }, dataDir ? { dataDir } : {});
  cleanup.push(() => s.stop());
  return s;
}

async function pushAll(s: TestServer, apiKey: string, docs = DOCS): Promise<{ id: string; status: string }[]> {
  const out = [];
  for (const [name, content] of docs) {
    const res = await fetch(`${s.url}/api/v1/documents`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name, content }),
    });
    expect(res.status).toBeLessThan(300);
    out.push((await res.json()) as { id: string; status: string });
  }
  return out;
}

async function trained(s: TestServer, apiKey: string, ids: string[]): Promise<void> {
  await s.services.documents.waitFor(ids, 20_000);
  // each document's status through its status_url (listing needs the owner's opt-in: the key is public)
  const statuses = await Promise.all(
    ids.map(
      async (id) =>
        (
          (await (await fetch(`${s.url}/api/v1/documents/${id}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as {
            status: string;
          }
        ).status,
    ),
  );
  expect(statuses.every((st) => st === "completed")).toBe(true);
}

async function ask(s: TestServer, apiKey: string, question: string): Promise<{ answer: string; sources: string[] }> {
  const res = await fetch(`${s.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "x", messages: [{ role: "user", content: question }] }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { choices: { message: { content: string } }[]; sources: string[] };
  return { answer: body.choices[0]?.message.content ?? "", sources: body.sources };
}

/** A data dir trained through a server using `fake` for embeddings; the server is stopped, the dir kept. */
async function trainedDataDir(fake: FakeModelServer, prefix: string): Promise<{ dataDir: string; apiKey: string; deploymentId: string }> {
  const dataDir = tempDir(prefix);
  cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await server(embeddingsEnv(fake), dataDir);
  const { apiKey, deploymentId } = await first.seed();
  await trained(
    first,
    apiKey,
    (await pushAll(first, apiKey)).map((d) => d.id),
  );
  await first.stop();
  cleanup.pop();
  return { dataDir, apiKey, deploymentId };
}

async function trainedServer(env: Record<string, string>) {
  const s = await server(env);
  const { apiKey, deploymentId } = await s.seed();
  await trained(
    s,
    apiKey,
    (await pushAll(s, apiKey)).map((d) => d.id),
  );
  return { s, apiKey, deploymentId };
}

describe("embeddings from an OpenAI-compatible server", () => {
  test("a paraphrase refused keyword-only is answered with embeddings on", async () => {
    // "What is the sitagliptin dose?" is answered from keywords alone ("100 mg/day" is a dose); this wording is not
    const question = "How should sitagliptin be dosed?";
    const keywordOnly = await trainedServer({ DOCCHAT_EMBEDDER: "none" });
    expect((await ask(keywordOnly.s, keywordOnly.apiKey, question)).answer).toBe(REFUSAL_TEXT);

    const fake = fakeServer();
    // A strong model earns a vector weight above the keyword ranking's (docs/models.md).
    const withEmbeddings = await trainedServer(
      embeddingsEnv(fake, { DOCCHAT_EMBEDDINGS_COSINE: "0.2,0.6,0.7", DOCCHAT_VECTOR_WEIGHT: "2" }),
    );
    const answered = await ask(withEmbeddings.s, withEmbeddings.apiKey, question);
    expect(answered.answer).not.toBe(REFUSAL_TEXT);
    expect(answered.sources).toContain("diabetes-medicines");
    expect(answered.answer).toContain("100 mg/day");
  });

  test("without a cosine calibration the vectors rank but the gate still judges shared words", async () => {
    const fake = fakeServer();
    const { s, apiKey } = await trainedServer(embeddingsEnv(fake));
    expect((await ask(s, apiKey, "How should sitagliptin be dosed?")).answer).toBe(REFUSAL_TEXT);
    const r = await s.services.retriever.retrieve({ deploymentId: (await s.seed()).deploymentId, query: "x", topK: 3 });
    expect(r.judgedBy).toBe("coverage");
  });

  test("the vector leg changes the ranking", async () => {
    const fake = fakeServer();
    const { s, deploymentId } = await trainedServer(embeddingsEnv(fake, { DOCCHAT_VECTOR_WEIGHT: "2" }));
    const query = "sitagliptin dose";
    const keyword = await s.services.retriever.retrieve({ deploymentId, query, topK: 3, mode: "keyword" });
    const hybrid = await s.services.retriever.retrieve({ deploymentId, query, topK: 3 });
    expect(keyword.hits[0]?.source).toBe("storage");
    expect(hybrid.used.vector).toBe(true);
    expect(hybrid.hits[0]?.source).toBe("diabetes-medicines");
    // A question sharing no word with its passage is found by the vectors alone.
    const paraphrase = await s.services.retriever.retrieve({ deploymentId, query: "How do I get my money back?", topK: 3 });
    expect(paraphrase.hits[0]?.source).toBe("returns");
  });

  test("query and document prefixes are sent as configured: by model family, or overridden", async () => {
    const fake = fakeServer();
    const { s, apiKey } = await trainedServer(embeddingsEnv(fake));
    const documentInputs = fake
      .embeddingCalls()
      .flatMap((c) => c.input ?? [])
      .filter((t) => t !== "dimension probe");
    expect(documentInputs.length).toBeGreaterThan(0);
    expect(documentInputs.every((t) => t.startsWith("search_document: "))).toBe(true);
    await ask(s, apiKey, "When is the pharmacy open?");
    expect(fake.embeddingCalls().at(-1)?.input).toEqual(["search_query: When is the pharmacy open?"]);

    const other = fakeServer();
    const overridden = await trainedServer(
      embeddingsEnv(other, { DOCCHAT_EMBEDDINGS_QUERY_PREFIX: "Q: ", DOCCHAT_EMBEDDINGS_DOCUMENT_PREFIX: "none" }),
    );
    await ask(overridden.s, overridden.apiKey, "When is the pharmacy open?");
    expect(other.embeddingCalls().at(-1)?.input).toEqual(["Q: When is the pharmacy open?"]);
    expect(
      other
        .embeddingCalls()
        .flatMap((c) => c.input ?? [])
        .some((t) => t.startsWith("Unopened packs")),
    ).toBe(true);
  });

  test("batches respect the configured size", async () => {
    const fake = fakeServer();
    const s = await server(embeddingsEnv(fake, { DOCCHAT_EMBEDDINGS_BATCH_SIZE: "3" }));
    const { apiKey } = await s.seed();
    const many: [string, string][] = Array.from({ length: 2 }, (_, d) => [
      `part-${d}.txt`,
      Array.from({ length: 400 }, (_, i) => `Paragraph ${d}-${i} talks about topic number ${d * 100 + i} in some detail.`).join("\n\n"),
    ]);
    await trained(
      s,
      apiKey,
      (await pushAll(s, apiKey, many)).map((d) => d.id),
    );
    const sizes = fake.embeddingCalls().map((c) => c.input?.length ?? 0);
    const chunks = Number((await testSql(s.services).get<{ n: number }>("SELECT COUNT(DISTINCT text_hash) AS n FROM chunks"))?.n ?? 0);
    expect(chunks).toBeGreaterThan(3);
    expect(Math.max(...sizes)).toBe(3);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(chunks);
  });

  test("a server outage during ingest loses nothing: documents wait with a visible reason and complete after recovery", async () => {
    const fake = fakeServer();
    const s = await server(embeddingsEnv(fake));
    const { apiKey, deploymentId } = await s.seed();
    // the owner lets this (secret) key list documents, to watch their state as an operator would
    await s.services.deployments.update(deploymentId, { keyManagesDocuments: true });
    await trained(
      s,
      apiKey,
      (await pushAll(s, apiKey, DOCS.slice(0, 1))).map((d) => d.id),
    );

    await fake.stop();
    const pushed = await pushAll(s, apiKey, DOCS.slice(1));
    expect(pushed.every((d) => d.status === "queued" || d.status === "processing")).toBe(true);
    let waiting: { status: string; error: { code: string; message: string } | null }[] = [];
    for (let i = 0; i < 100; i++) {
      const list = (await (await fetch(`${s.url}/api/v1/documents`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as {
        data: (typeof waiting)[number][];
      };
      waiting = list.data.filter((d) => d.error?.code === "waiting_for_embeddings");
      if (waiting.length > 0) break;
      await Bun.sleep(50);
    }
    expect(waiting.length).toBeGreaterThan(0);
    // waiting in the queue, or being retried right now (the training loop polls the server): never failed
    expect(waiting.every((d) => d.status === "queued" || d.status === "processing")).toBe(true);
    expect(waiting[0]?.error?.message).toContain("Waiting for the embeddings server");
    // Meanwhile answers come from keyword retrieval instead of failing.
    expect((await ask(s, apiKey, "How should sitagliptin tablets be stored?")).sources).toContain("storage");

    fake.restart();
    await trained(
      s,
      apiKey,
      pushed.map((d) => d.id),
    );
    const all = await s.services.documents.list((await s.services.repos.deployments.list())[0]?.id ?? "");
    expect(all.every((d) => d.status === "completed" && d.errorCode === null)).toBe(true);
    const vectors = Number((await testSql(s.services).get<{ n: number }>("SELECT COUNT(*) AS n FROM chunks"))?.n ?? 0);
    expect(vectors).toBeGreaterThanOrEqual(DOCS.length);
  });

  test("a slow embeddings server never blocks the event loop: other requests are served while it thinks", async () => {
    const fake = fakeServer();
    const { s, apiKey } = await trainedServer(embeddingsEnv(fake, { DOCCHAT_EMBEDDINGS_TIMEOUT_MS: "10000" }));
    fake.set({ delayMs: 1500 });
    let chatDone = false;
    const chat = ask(s, apiKey, "When is the pharmacy open?").then((r) => {
      chatDone = true;
      return r;
    });
    while (!fake.calls.some((c) => c.path === "/embeddings" && c.input?.[0]?.includes("pharmacy open"))) await Bun.sleep(5);
    const health = await fetch(`${s.url}/health`);
    expect(health.status).toBe(200);
    expect(chatDone).toBe(false);
    expect((await chat).sources).toContain("opening-hours");
  });
});

describe("the index remembers its embedder", () => {
  test("a model or dimension change refuses to start and names reindex; docchat reindex fixes it", async () => {
    const fake = fakeServer();
    const { dataDir, deploymentId } = await trainedDataDir(fake, "docchat-reindex-");

    const base = { DOCCHAT_DATA: dataDir, DOCCHAT_LOG_LEVEL: "error", DOCCHAT_PORT: "0", ...embeddingsEnv(fake) };
    const otherModel = await runCliProcess(["serve"], { ...base, DOCCHAT_EMBEDDINGS_MODEL: "mxbai-embed-large" });
    expect(otherModel.code).not.toBe(0);
    expect(otherModel.stderr).toContain("openai:nomic-embed-text@256");
    expect(otherModel.stderr).toContain("docchat reindex");

    const doctor = JSON.parse(
      (await runCliProcess(["doctor", "--json"], { ...base, DOCCHAT_EMBEDDINGS_MODEL: "mxbai-embed-large" })).stdout,
    );
    expect(doctor.embedder.status).toBe("error");
    expect(doctor.embedder.summary).toContain("docchat reindex");

    fake.set({ dimension: 128 });
    const otherDimension = await runCliProcess(["serve"], base);
    expect(otherDimension.code).not.toBe(0);
    expect(otherDimension.stderr).toContain("openai:nomic-embed-text@128");

    const reindex = await runCliProcess(["reindex", "--json"], base);
    expect(reindex.code).toBe(0);
    expect(JSON.parse(reindex.stdout)).toMatchObject({ embedder: "openai:nomic-embed-text@128" });

    const services = await createServices(configFor(dataDir, embeddingsEnv(fake)));
    try {
      await services.startWorkers();
      const r = await services.retriever.retrieve({ deploymentId, query: "sitagliptin dose", topK: 3 });
      expect(r.used.vector).toBe(true);
      expect(r.hits.some((h) => h.cosine !== undefined)).toBe(true);
    } finally {
      await services.close();
    }
  });

  test("an embeddings server down at start: the server starts, answers from keywords and logs why", async () => {
    const fake = fakeServer();
    const { dataDir, deploymentId } = await trainedDataDir(fake, "docchat-down-at-start-");
    await fake.stop();

    const lines: string[] = [];
    const services = await createServices(configFor(dataDir, embeddingsEnv(fake)), { log: createLogger("warn", (l) => lines.push(l)) });
    try {
      await services.startWorkers();
      const r = await services.retriever.retrieve({ deploymentId, query: "How should sitagliptin tablets be stored?", topK: 3 });
      expect(r.used.vector).toBe(false);
      expect(r.hits[0]?.source).toBe("storage");
      expect(lines.some((l) => l.includes("embeddings server unreachable at start"))).toBe(true);
      expect(lines.some((l) => l.includes("keyword retrieval only"))).toBe(true);
      const doctor = await runCliProcess(["doctor", "--json"], { DOCCHAT_DATA: dataDir, ...embeddingsEnv(fake) });
      const report = JSON.parse(doctor.stdout) as { embedder: { status: string; summary: string; reachable: boolean; where: string } };
      expect(report.embedder.status).toBe("warn");
      expect(report.embedder.reachable).toBe(false);
      expect(report.embedder).toMatchObject({ where: "remote", model: "nomic-embed-text", url: fake.url });
      expect(report.embedder.summary).toContain("keyword retrieval");
    } finally {
      await services.close();
    }
  });
});

test("an embeddings server down at the very first start: docchat starts, documents wait, the server is not asked again for every search, and training completes once it is back", async () => {
  const fake = fakeServer({ failing: true });
  const s = await server(embeddingsEnv(fake));
  const { apiKey, deploymentId } = await s.seed();
  const [doc] = await pushAll(s, apiKey, DOCS.slice(3));
  for (let i = 0; i < 100 && (await s.services.documents.list(deploymentId))[0]?.errorCode !== "waiting_for_embeddings"; i++)
    await Bun.sleep(50);
  expect((await s.services.documents.list(deploymentId))[0]).toMatchObject({ status: "queued", errorCode: "waiting_for_embeddings" });
  const before = fake.calls.length;
  for (let i = 0; i < 3; i++)
    expect((await s.services.retriever.retrieve({ deploymentId, query: "When is the pharmacy counter open?", topK: 3 })).used.vector).toBe(
      false,
    );
  expect(fake.calls.length - before).toBeLessThanOrEqual(1);
  fake.set({ failing: false });
  await trained(s, apiKey, [doc?.id ?? ""]);
  expect(await s.services.repos.chunkIndex.meta("embedder")).toBe("openai:nomic-embed-text@256");
  expect((await ask(s, apiKey, "When is the pharmacy counter open?")).answer).toContain("Monday to Saturday");
});

describe("reranking before the gate", () => {
  const rerankEnv = (fake: FakeModelServer, extra: Record<string, string> = {}) => ({
    DOCCHAT_EMBEDDER: "none",
    DOCCHAT_RERANK_URL: fake.url,
    DOCCHAT_RERANK_MODEL: "bge-reranker-v2-m3",
    ...extra,
  });

  test("the reranker changes the ranking and supplies each hit's score", async () => {
    const fake = fakeServer();
    const { s, deploymentId } = await trainedServer(rerankEnv(fake));
    const keyword = await s.services.retriever.retrieve({ deploymentId, query: "sitagliptin dose", topK: 3, mode: "keyword" });
    expect(keyword.judgedBy).toBe("reranker");
    const r = await s.services.retriever.retrieve({ deploymentId, query: "sitagliptin dose", topK: 3 });
    expect(r.used.reranker).toBe(true);
    expect(r.judgedBy).toBe("reranker");
    expect(r.hits[0]?.source).toBe("diabetes-medicines");
    expect(r.hits.every((h) => typeof h.rerankScore === "number" && h.rerankScore >= 0 && h.rerankScore <= 1)).toBe(true);
    expect(r.relevance).toBe(r.hits[0]?.rerankScore ?? -1);
    const call = fake.calls.find((c) => c.path === "/rerank");
    expect(call?.model).toBe("bge-reranker-v2-m3");
    expect(call?.query).toBe("sitagliptin dose");
  });

  test("the reranker's score decides the refusal, against the deployment's own threshold when it has one", async () => {
    let forced: number | null = 0.9;
    const fake = fakeServer({ rerankScore: (q, d) => forced ?? fakeRelevance(q, d, 256) });
    const { s, apiKey, deploymentId } = await trainedServer(rerankEnv(fake));
    // Shares every word with its passage (term coverage would answer it), but the reranker says no.
    const question = "How should sitagliptin tablets be stored?";
    expect((await ask(s, apiKey, question)).answer).not.toBe(REFUSAL_TEXT);
    forced = 0.1;
    expect((await ask(s, apiKey, question)).answer).toBe(REFUSAL_TEXT);
    // Shares almost no words with its passage (term coverage would refuse it), but the reranker says yes.
    forced = null;
    expect((await ask(s, apiKey, "What is the sitagliptin dose?")).answer).toContain("100 mg/day");
    forced = 0.9;
    await s.services.repos.deployments.update(deploymentId, { refusalThreshold: 0.95 });
    expect((await ask(s, apiKey, question)).answer).toBe(REFUSAL_TEXT);
  });

  test("a rerank server that fails leaves the answer to term coverage instead of failing the visitor", async () => {
    const fake = fakeServer();
    const { s, apiKey, deploymentId } = await trainedServer(rerankEnv(fake));
    fake.set({ failing: true });
    const r = await s.services.retriever.retrieve({ deploymentId, query: "How should sitagliptin tablets be stored?", topK: 3 });
    expect(r.judgedBy).toBe("coverage");
    expect(r.hits[0]?.source).toBe("storage");
    expect((await ask(s, apiKey, "How should sitagliptin tablets be stored?")).answer).not.toBe(REFUSAL_TEXT);
  });

  test("TEI's native rerank format is used when the server asks for it", async () => {
    const fake = fakeServer({ rerankFormat: "tei" });
    const { s, deploymentId } = await trainedServer(rerankEnv(fake, { DOCCHAT_RERANK_MODEL: "" }));
    const r = await s.services.retriever.retrieve({ deploymentId, query: "sitagliptin dose", topK: 3 });
    expect(r.judgedBy).toBe("reranker");
    expect(r.hits[0]?.source).toBe("diabetes-medicines");
  });
});

test("models and doctor --load show the active embedder and reranker: remote, model, dimension, reachable, probe scores", async () => {
  const fake = fakeServer();
  const env = {
    ...embeddingsEnv(fake),
    DOCCHAT_RERANK_URL: fake.url,
    DOCCHAT_RERANK_MODEL: "bge-reranker-v2-m3",
    DOCCHAT_DATA: join(noModels, "data"),
  };
  const models = JSON.parse((await runCliProcess(["models", "--json"], env)).stdout);
  expect(models.retrieval_mode).toBe("reranker");
  expect(models.embedder).toMatchObject({ where: "remote", id: "openai:nomic-embed-text", dimension: 256, reachable: true });
  expect(models.reranker).toMatchObject({ where: "remote", model: "bge-reranker-v2-m3", reachable: true });
  const doctor = JSON.parse((await runCliProcess(["doctor", "--load", "--json"], env)).stdout);
  expect(doctor.embedder).toMatchObject({ status: "ok", where: "remote", dimension: 256, reachable: true });
  expect(doctor.reranker.status).toBe("ok");
  expect(doctor.reranker.scores).toHaveLength(2);
  expect(doctor.reranker.scores[0]).toBeGreaterThan(doctor.reranker.scores[1]);
});
