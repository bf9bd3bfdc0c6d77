/**
 * Security review round 3, N6 and N7: a hanging embeddings or rerank server made every tenant's answers wait
 * 30–60 s, and a model server's 300 MB reply was read whole into memory. Now each model server has a circuit
 * (after consecutive failures, calls fail at once: keyword retrieval, or 503 for the chat model, until a
 * half-open probe succeeds), shown by doctor and in metrics; and every upstream reply is read with a size cap.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type FakeModelServer, fakeEmbedding, startFakeModelServer } from "../helpers/fake-model-server.ts";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.ts";
import { startServeProcess } from "../helpers/serve-process.ts";
import { runCliProcess, startTestServer, type TestServer, tempDir } from "../helpers/server.ts";

const TOKEN = "metrics-token-0123456789";
const DOCS = [
  "Refund policy. Annual plans can be refunded within 30 days of purchase.",
  "Shipping. Orders leave the warehouse within two working days.",
  "Support hours. The help desk answers from nine to five on weekdays.",
];

async function world(models: FakeModelServer, env: Record<string, string>) {
  const srv = await startTestServer({
    DOCCHAT_EMBEDDER: "auto",
    DOCCHAT_MODELS: tempDir("docchat-no-models-"),
    DOCCHAT_EMBEDDINGS_URL: models.url,
    DOCCHAT_EMBEDDINGS_MODEL: "nomic-embed-text",
    DOCCHAT_EMBEDDINGS_TIMEOUT_MS: "300",
    DOCCHAT_EMBEDDINGS_RETRIES: "0",
    DOCCHAT_METRICS_TOKEN: TOKEN,
    DOCCHAT_MODEL_CIRCUIT_FAILURES: "2",
    ...env,
  });
  const { apiKey } = await srv.seed();
  for (const [i, content] of DOCS.entries()) {
    const r = await fetch(`${srv.url}/api/v1/documents`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ content, name: `doc-${i}.txt` }),
    });
    expect(r.status).toBe(200);
  }
  return { srv, apiKey };
}

const ask = (srv: TestServer, key: string, question: string) =>
  fetch(`${srv.url}/api/v1/chat/completions-with-sources`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "x", messages: [{ role: "user", content: question }] }),
  });

const circuitGauge = async (srv: TestServer, server: string) => {
  const text = await (await fetch(`${srv.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  return Number(new RegExp(`docchat_model_circuit_open\\{server="${server}"\\} (\\d)`).exec(text)?.[1] ?? "NaN");
};

describe("a hanging embeddings server (N6)", () => {
  let models: FakeModelServer;
  let srv: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    models = startFakeModelServer({ dimension: 48 });
    // a cool-down far longer than the test: once open, the circuit stays open here
    ({ srv, apiKey } = await world(models, { DOCCHAT_MODEL_CIRCUIT_COOLDOWN_MS: "600000" }));
  }, 60_000);
  afterAll(async () => {
    await srv.stop();
    await models.close();
  });

  test("after two failed question embeddings the circuit opens: questions are answered from keywords without calling the server", async () => {
    expect(await circuitGauge(srv, "embeddings")).toBe(0);
    models.set({ delayMs: 5000 });
    for (const q of ["Can annual plans be refunded?", "When do orders leave the warehouse?"]) {
      const r = await ask(srv, apiKey, q);
      expect(r.status).toBe(200);
    }
    expect(await circuitGauge(srv, "embeddings")).toBe(1);
    const before = models.embeddingCalls().length;
    for (let i = 0; i < 3; i++) {
      const r = await ask(srv, apiKey, "Can annual plans be refunded within 30 days?");
      expect(r.status).toBe(200);
      expect(((await r.json()) as { sources: string[] }).sources).toEqual(["doc-0"]);
    }
    expect(models.embeddingCalls().length).toBe(before);
  });

  test("doctor on the data dir shows the open circuit, its server and why", async () => {
    const r = await runCliProcess(["doctor", "--offline", "--json", "--data", srv.dataDir], {
      DOCCHAT_EMBEDDINGS_URL: models.url,
      DOCCHAT_EMBEDDINGS_MODEL: "nomic-embed-text",
      DOCCHAT_LOG_LEVEL: "silent",
    });
    const report = JSON.parse(r.stdout) as { circuits: { status: string; summary: string; circuits: { name: string; state: string }[] } };
    expect(report.circuits.status).toBe("warn");
    expect(report.circuits.summary).toContain("embeddings");
    expect(report.circuits.summary).toContain("no answer within 300 ms");
    expect(report.circuits.circuits.find((c) => c.name === "embeddings")?.state).toBe("open");
  });
});

describe("after the cool-down (N6)", () => {
  test("one question goes through as a probe; when the server answers again the circuit closes", async () => {
    const models = startFakeModelServer({ dimension: 48 });
    const { srv, apiKey } = await world(models, { DOCCHAT_MODEL_CIRCUIT_COOLDOWN_MS: "200" });
    try {
      models.set({ delayMs: 5000 });
      for (const q of ["Can annual plans be refunded?", "When do orders leave the warehouse?"])
        expect((await ask(srv, apiKey, q)).status).toBe(200);
      expect(await circuitGauge(srv, "embeddings")).toBe(1);
      models.set({ delayMs: 0 });
      await Bun.sleep(400); // past the cool-down
      const before = models.embeddingCalls().length;
      expect((await ask(srv, apiKey, "When does the help desk answer?")).status).toBe(200);
      expect(models.embeddingCalls().length).toBe(before + 1);
      expect(await circuitGauge(srv, "embeddings")).toBe(0);
    } finally {
      await srv.stop();
      await models.close();
    }
  }, 60_000);
});

describe("a failing chat model (N6)", () => {
  let upstream: FakeUpstream;
  let srv: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    upstream = startFakeUpstream({ mode: { kind: "fail", status: 500 } });
    srv = await startTestServer({
      DOCCHAT_LLM_URL: upstream.url,
      DOCCHAT_LLM_MODEL: "fake-model",
      DOCCHAT_MODEL_CIRCUIT_FAILURES: "2",
      DOCCHAT_MODEL_CIRCUIT_COOLDOWN_MS: "600000",
      DOCCHAT_METRICS_TOKEN: TOKEN,
    });
    ({ apiKey } = await srv.seed());
    const r = await fetch(`${srv.url}/api/v1/documents`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ content: DOCS[0], name: "refunds.txt" }),
    });
    expect(r.status).toBe(200);
  });
  afterAll(async () => {
    await srv.stop();
    await upstream.close();
  });

  test("after two failures answers fail at once with 503 backend_down and Retry-After, without calling the model", async () => {
    for (let i = 0; i < 2; i++) expect((await ask(srv, apiKey, "Can annual plans be refunded?")).status).toBe(503);
    const calls = upstream.calls.length;
    const r = await ask(srv, apiKey, "Can annual plans be refunded?");
    expect(r.status).toBe(503);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("backend_down");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(1);
    expect(upstream.calls.length).toBe(calls);
    expect(await circuitGauge(srv, "llm")).toBe(1);
  });
});

/** A model server that answers every request with a reply of `mb` megabytes, streamed (never held in its memory). */
function hugeReplies(kind: "embeddings" | "sse", mb: number) {
  let huge = false;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const body = (await req.json().catch(() => ({}))) as { input?: string[] };
      if (!huge && kind === "embeddings")
        return Response.json({ data: (body.input ?? []).map((t, index) => ({ index, embedding: Array.from(fakeEmbedding(t, 48)) })) });
      const piece = new TextEncoder().encode(
        kind === "sse" ? `data: {"choices":[{"delta":{"content":"${"a".repeat(1000)}"}}]}\n\n` : "0.1,".repeat(16_384),
      );
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          if (kind === "embeddings") c.enqueue(new TextEncoder().encode('{"data":[{"index":0,"embedding":['));
        },
        pull(c) {
          if (sent >= mb * 1024 * 1024) return c.close();
          sent += piece.byteLength;
          c.enqueue(piece);
        },
      });
      return new Response(stream, { headers: { "content-type": kind === "sse" ? "text/event-stream" : "application/json" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    goHuge: () => {
      huge = true;
    },
    close: () => server.stop(true),
  };
}

const rssOf = async (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(await Bun.file(`/proc/${pid}/status`).text())?.[1] ?? "0") * 1024;

describe("oversized replies from model servers (N7)", () => {
  test("300 MB replies from the embeddings server and the chat model are cut off at their caps; the node's memory stays put", async () => {
    const embeddings = hugeReplies("embeddings", 300);
    const chat = hugeReplies("sse", 300);
    const data = tempDir("docchat-huge-replies-");
    const cli = (args: string[]) => runCliProcess([...args, "--data", data, "--json"], { DOCCHAT_EMBEDDER: "none" });
    expect((await cli(["account", "create", "--email", "huge@example.com", "--tokens", "100000"])).code).toBe(0);
    const key = (
      JSON.parse((await cli(["deployment", "create", "--account", "huge@example.com", "--name", "H", "--publish"])).stdout) as {
        api_key: string;
      }
    ).api_key;
    const node = await startServeProcess({
      command: [process.execPath, join(import.meta.dir, "../../src/main.ts")],
      dataDir: data,
      env: {
        DOCCHAT_EMBEDDER: "auto",
        DOCCHAT_MODELS: tempDir("docchat-no-models-"),
        DOCCHAT_EMBEDDINGS_URL: embeddings.url,
        DOCCHAT_EMBEDDINGS_MODEL: "m",
        DOCCHAT_EMBEDDINGS_RETRIES: "0",
        DOCCHAT_LLM_URL: chat.url,
        DOCCHAT_LLM_MODEL: "m",
      },
    });
    try {
      const pushed = await fetch(`${node.url}/api/v1/documents`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ content: DOCS[0], name: "refunds.txt" }),
      });
      expect(pushed.status).toBe(200);
      embeddings.goHuge();
      chat.goHuge();
      const before = await rssOf(node.pid);
      let worst = before;
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${node.url}/api/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "x", messages: [{ role: "user", content: "Can annual plans be refunded?" }] }),
        });
        // the query embedding is refused (keyword retrieval goes on); the chat model's reply is cut off: 503
        expect(r.status).toBe(503);
        expect(((await r.json()) as { error: { code: string } }).error.code).toBe("backend_down");
        worst = Math.max(worst, await rssOf(node.pid));
      }
      // each request reads up to its caps (16 MB of embeddings, 4 MB of stream) and the collector frees them when it
      // likes; one reply read whole would be 300 MB on its own
      expect(worst - before).toBeLessThan(200 * 1024 * 1024);
      expect(node.log()).toContain("query embedding failed");
    } finally {
      await node.stop();
      embeddings.close();
      chat.close();
    }
  }, 120_000);
});
