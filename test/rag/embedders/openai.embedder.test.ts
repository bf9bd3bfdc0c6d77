import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createOpenAiEmbedder, type OpenAiEmbedderOptions } from "../../../src/rag/embedders/openai.embedder.ts";
import { ModelServerRequestError, ModelServerUnavailableError } from "../../../src/rag/remote/model-server.ts";
import { startFakeModelServer } from "../../helpers/fake-model-server.ts";

const server = startFakeModelServer({ dimension: 256 });
afterAll(() => server.close());
beforeEach(() => {
  server.calls.length = 0;
  server.set({ failing: false, delayMs: 0, dimension: 256 });
});

const options = (o: Partial<OpenAiEmbedderOptions> = {}): OpenAiEmbedderOptions => ({
  url: server.url,
  model: "nomic-embed-text",
  batchSize: 4,
  concurrency: 2,
  timeoutMs: 2000,
  retries: 2,
  backoffMs: 5,
  prefixes: { query: "search_query: ", document: "search_document: " },
  ...o,
});

describe("OpenAI-compatible embedder", () => {
  test("the dimension is read from the server at start and the id names the model", async () => {
    const e = await createOpenAiEmbedder(options());
    expect(e.dimension).toBe(256);
    expect(e.id).toBe("openai:nomic-embed-text");
    expect(e.dimensionFromIndex).toBe(false);
  });

  test("documents are sent in batches of the configured size, with no more requests in flight than allowed", async () => {
    const e = await createOpenAiEmbedder(options({ batchSize: 3, concurrency: 2 }));
    server.calls.length = 0;
    server.set({ delayMs: 30 });
    const texts = Array.from({ length: 20 }, (_, i) => `passage number ${i}`);
    const vectors = await e.embedDocuments(texts);
    expect(vectors).toHaveLength(20);
    const sizes = server.embeddingCalls().map((c) => c.input?.length ?? 0);
    expect(sizes.every((n) => n <= 3)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(20);
    expect(Math.max(...server.calls.map((c) => c.inFlight))).toBe(2);
    // Order is kept across batches: the 20th vector is the 20th text's.
    const [alone] = await e.embedDocuments([texts[19] as string]);
    expect(Array.from(vectors[19] ?? [])).toEqual(Array.from(alone ?? []));
  });

  test("query and document prefixes are sent as configured, and the model name with every request", async () => {
    const e = await createOpenAiEmbedder(options({ prefixes: { query: "Q> ", document: "" } }));
    server.calls.length = 0;
    await e.embedQuery("what is the dose?");
    await e.embedDocuments(["sitagliptin 100 mg/day"]);
    expect(server.embeddingCalls().map((c) => c.input)).toEqual([["Q> what is the dose?"], ["sitagliptin 100 mg/day"]]);
    expect(server.embeddingCalls().every((c) => c.model === "nomic-embed-text")).toBe(true);
  });

  test("the API key is sent as a bearer token", async () => {
    const e = await createOpenAiEmbedder(options({ apiKey: "sk-test-embeddings" }));
    await e.embedQuery("hello");
    expect(server.calls.at(-1)?.authorization).toBe("Bearer sk-test-embeddings");
  });

  test("a server that answers 503 is retried with backoff and the texts are embedded once it recovers", async () => {
    const e = await createOpenAiEmbedder(options({ retries: 5, backoffMs: 20 }));
    server.calls.length = 0;
    server.set({ failing: true });
    setTimeout(() => server.set({ failing: false }), 60);
    const [v] = await e.embedDocuments(["refund within 30 days"]);
    expect(v?.length).toBe(256);
    expect(server.calls.length).toBeGreaterThan(1);
  });

  test("a server that stays down fails with an unavailable error after the configured retries", async () => {
    const e = await createOpenAiEmbedder(options({ retries: 2 }));
    server.calls.length = 0;
    server.set({ failing: true });
    await expect(e.embedDocuments(["x"])).rejects.toBeInstanceOf(ModelServerUnavailableError);
    expect(server.calls).toHaveLength(3);
  });

  test("a request the server refuses (404 unknown model) is not retried and says what the server said", async () => {
    server.set({ models: ["other-model"] });
    try {
      await expect(createOpenAiEmbedder(options({ model: "missing-model" }))).rejects.toBeInstanceOf(ModelServerRequestError);
      expect(server.calls).toHaveLength(1);
    } finally {
      server.set({ models: undefined });
    }
  });

  test("an answer slower than the timeout counts as unavailable", async () => {
    const e = await createOpenAiEmbedder(options({ timeoutMs: 50, retries: 0 }));
    server.set({ delayMs: 300 });
    await expect(e.embedQuery("slow")).rejects.toThrow(/no answer within 50 ms/);
  });

  test("when the server is down at start, the dimension the index recorded is used and work resumes when it is back", async () => {
    server.set({ failing: true });
    const e = await createOpenAiEmbedder(options({ knownDimension: 256, retries: 0 }));
    expect(e.dimensionFromIndex).toBe(true);
    expect(e.dimension).toBe(256);
    server.set({ failing: false });
    expect((await e.embedQuery("back again")).length).toBe(256);
  });

  test("when the server is down at start and nothing recorded a dimension, creation fails as unavailable", async () => {
    server.set({ failing: true });
    await expect(createOpenAiEmbedder(options({ retries: 0 }))).rejects.toBeInstanceOf(ModelServerUnavailableError);
  });

  test("a server that starts returning another dimension is refused with the reindex command", async () => {
    const e = await createOpenAiEmbedder(options());
    server.set({ dimension: 32 });
    await expect(e.embedQuery("changed")).rejects.toThrow(/docchat reindex/);
  });

  // These use their own server: requests an earlier test abandoned (timeouts) may still be running on the shared one.
  /** An embedder sending batches of one to a server of its own that takes `delayMs` per request; the server is closed after `body`. */
  async function onOwnServer(
    o: { concurrency: number; delayMs: number },
    body: (e: Awaited<ReturnType<typeof createOpenAiEmbedder>>, own: ReturnType<typeof startFakeModelServer>) => Promise<void>,
  ): Promise<void> {
    const own = startFakeModelServer({});
    try {
      const e = await createOpenAiEmbedder(options({ url: own.url, batchSize: 1, concurrency: o.concurrency }));
      own.calls.length = 0;
      own.set({ delayMs: o.delayMs });
      await body(e, own);
    } finally {
      await own.close();
    }
  }

  test("a question's embedding goes before training batches already waiting for the server", async () => {
    await onOwnServer({ concurrency: 1, delayMs: 20 }, async (e, own) => {
      const ingest = e.embedDocuments(Array.from({ length: 6 }, (_, i) => `training passage ${i}`));
      while (own.calls.length === 0) await Bun.sleep(1);
      await e.embedQuery("a visitor's question");
      await ingest;
      const order = own.embeddingCalls().map((c) => c.input?.[0] ?? "");
      expect(order.indexOf("search_query: a visitor's question")).toBe(1);
      expect(Math.max(...own.calls.map((c) => c.inFlight))).toBe(1);
    });
  });

  test("a question's embedding is retried at most once, however many retries training gets", async () => {
    const e = await createOpenAiEmbedder(options({ retries: 5 }));
    server.calls.length = 0;
    server.set({ failing: true });
    await expect(e.embedQuery("x")).rejects.toBeInstanceOf(ModelServerUnavailableError);
    expect(server.calls).toHaveLength(2);
  });

  test("the concurrency bound holds when slots are released and new requests arrive at the same moment", async () => {
    await onOwnServer({ concurrency: 2, delayMs: 5 }, async (e, own) => {
      await Promise.all(
        Array.from({ length: 8 }, (_, i) => Promise.all([e.embedDocuments([`a${i}`, `b${i}`, `c${i}`]), e.embedQuery(`q${i}`)])),
      );
      expect(own.calls).toHaveLength(32);
      expect(Math.max(...own.calls.map((c) => c.inFlight))).toBe(2);
    });
  });

  test("known paraphrases land closer than unrelated text (the fake server's synonym table)", async () => {
    const e = await createOpenAiEmbedder(options());
    const q = await e.embedQuery("What is the sitagliptin dose?");
    const [near, far] = await e.embedDocuments(["Sitagliptin 100 mg/day once.", "The office is closed on Sunday."]);
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
    expect(dot(q, near as Float32Array)).toBeGreaterThan(dot(q, far as Float32Array) + 0.3);
  });
});
