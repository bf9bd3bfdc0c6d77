/**
 * One contract for every Reranker: the server reranker in both wire formats (vLLM/llama.cpp/Jina/Cohere
 * `documents`, TEI's native `texts`) and with raw-logit scores (llama.cpp's server), against a real HTTP server.
 * The in-process GGUF reranker cannot join: the only test GGUF has no classification head, so node-llama-cpp
 * refuses a ranking context for it (tested below). A new reranker joins by adding a subject.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createGgufReranker } from "../../../src/rag/rerank/gguf.reranker.ts";
import { createHttpReranker } from "../../../src/rag/rerank/http.reranker.ts";
import { type Reranker, toProbabilities } from "../../../src/rag/rerank/reranker.ts";
import { type FakeModelServer, startFakeModelServer } from "../../helpers/fake-model-server.ts";
import { sharedModel } from "../../helpers/paths.ts";

const servers: FakeModelServer[] = [];
const serve = (o: Parameters<typeof startFakeModelServer>[0]) => {
  const s = startFakeModelServer(o);
  servers.push(s);
  return s;
};
afterAll(async () => {
  for (const s of servers) await s.close();
});

const http = { concurrency: 2, timeoutMs: 5000, retries: 1 };
const subjects: { name: string; create(): Reranker }[] = [
  {
    name: "server, documents format (vLLM, llama.cpp, Jina/Cohere)",
    create: () => createHttpReranker({ ...http, url: serve({}).url, model: "bge-reranker-v2-m3" }),
  },
  {
    name: "server, TEI's native format found by auto",
    create: () => createHttpReranker({ ...http, url: serve({ rerankFormat: "tei" }).url, model: "" }),
  },
  {
    name: "server, TEI's format configured",
    create: () => createHttpReranker({ ...http, url: serve({ rerankFormat: "tei" }).url, model: "", format: "tei" }),
  },
  {
    name: "server answering raw logits (llama.cpp)",
    create: () => createHttpReranker({ ...http, url: serve({ rerankLogits: true }).url, model: "bge-reranker-v2-m3" }),
  },
];

const query = "What is the sitagliptin dose?";
const passages = ["The office is closed on public holidays.", "Sitagliptin: 100 mg/day, once daily.", "Parking is free for visitors."];

for (const subject of subjects) {
  describe(`Reranker contract: ${subject.name}`, () => {
    let r: Reranker;
    beforeAll(() => {
      r = subject.create();
    });

    test("it has a non-empty id", () => {
      expect(r.id.length).toBeGreaterThan(0);
    });

    test("it gives one score per passage, in input order, each a probability in 0..1", async () => {
      const scores = await r.rerank(query, passages);
      expect(scores).toHaveLength(passages.length);
      for (const s of scores) {
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
      }
      const best = scores.indexOf(Math.max(...scores));
      expect(passages[best]).toContain("Sitagliptin");
    });

    test("the passage that answers the question scores well above the ones that don't", async () => {
      const [off, on, other] = await r.rerank(query, passages);
      expect(on ?? 0).toBeGreaterThan(Math.max(off ?? 0, other ?? 0) + 0.2);
    });

    test("no passages give no scores, without a call", async () => {
      expect(await r.rerank(query, [])).toEqual([]);
    });

    test("the same input gives the same scores", async () => {
      expect(await r.rerank(query, passages)).toEqual(await r.rerank(query, passages));
    });
  });
}

test("scores declared as logits are always mapped, even when they all fall inside 0..1", () => {
  expect(toProbabilities([0.2, 0.9], "logit")).toEqual([1 / (1 + Math.exp(-0.2)), 1 / (1 + Math.exp(-0.9))]);
  expect(toProbabilities([1.5], "probability")).toEqual([1]);
});

test("raw logits are mapped through the sigmoid, probabilities are kept as they are", () => {
  expect(toProbabilities([0.2, 0.9])).toEqual([0.2, 0.9]);
  const mapped = toProbabilities([-2, 0, 3.5]);
  expect(mapped[0]).toBeCloseTo(1 / (1 + Math.exp(2)), 10);
  expect(mapped[1]).toBe(0.5);
  expect(mapped[2]).toBeCloseTo(1 / (1 + Math.exp(-3.5)), 10);
});

test("a server that answers without results, or leaves a passage unscored, is an error, not a silent zero", async () => {
  const broken = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => Response.json({ results: [{ index: 0, relevance_score: 0.9 }] }),
  });
  try {
    const r = createHttpReranker({ ...http, url: `http://127.0.0.1:${broken.port}`, model: "m" });
    await expect(r.rerank("q", ["a", "b"])).rejects.toThrow(/unscored/);
  } finally {
    await broken.stop(true);
  }
});

test("a GGUF without a classification head is refused as a reranker with the model's name and the reason", async () => {
  await expect(createGgufReranker({ modelPath: sharedModel("llama-2-tiny-random.gguf") })).rejects.toThrow(
    /llama-2-tiny-random\.gguf cannot rerank: Computing rankings is not supported/,
  );
});
