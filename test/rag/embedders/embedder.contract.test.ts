/**
 * One contract for every Embedder docchat can build: ONNX in-thread and worker-isolated (generated model), the
 * OpenAI-compatible remote embedder against a real HTTP server, and a GGUF in-process through node-llama-cpp (the
 * random-weight test model: its vectors are meaningless, so only the wiring is checked, not similarity). A new
 * embedder joins by adding a subject below.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Embedder } from "../../../src/rag/embedder.ts";
import { createInThreadEmbedder, type EmbedderSpec } from "../../../src/rag/embedders/embedder-spec.ts";
import { createGgufEmbedder } from "../../../src/rag/embedders/gguf.embedder.ts";
import { createOpenAiEmbedder } from "../../../src/rag/embedders/openai.embedder.ts";
import { createWorkerEmbedder } from "../../../src/rag/embedders/worker.embedder.ts";
import { createTinyModelFolder } from "../../fixtures/onnx/tiny-embedding-model.fixture.ts";
import { startFakeModelServer } from "../../helpers/fake-model-server.ts";
import { sharedModel } from "../../helpers/paths.ts";

const parent = mkdtempSync(join(tmpdir(), "docchat-contract-"));
const onnxSpec: EmbedderSpec = {
  kind: "onnx",
  options: { modelDir: createTinyModelFolder({ parentDir: parent, name: "tiny-minilm" }), batchSize: 2 },
};

const modelServer = startFakeModelServer({ dimension: 96 });
const remote = {
  url: modelServer.url,
  model: "nomic-embed-text",
  batchSize: 2,
  concurrency: 2,
  timeoutMs: 5000,
  retries: 1,
  prefixes: { query: "search_query: ", document: "search_document: " },
};

/** `meaningful: false` — random weights: vectors are unit-length and stable, but say nothing about similarity. */
const subjects: { name: string; meaningful: boolean; create(): Promise<Embedder> }[] = [
  { name: "onnx (generated model, in-thread)", meaningful: true, create: () => createInThreadEmbedder(onnxSpec) },
  { name: "onnx (generated model, worker)", meaningful: true, create: () => createWorkerEmbedder(onnxSpec) },
  { name: "openai-compatible server (fake, real HTTP)", meaningful: true, create: () => createOpenAiEmbedder(remote) },
  {
    name: "gguf in-process (random-weight test model)",
    meaningful: false,
    create: () => createGgufEmbedder({ modelPath: sharedModel("llama-2-tiny-random.gguf"), prefixes: { query: "", document: "" } }),
  },
];

afterAll(async () => {
  rmSync(parent, { recursive: true, force: true });
  await modelServer.close();
});

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
const documents = [
  "Refunds are issued within 14 days of a return.",
  "Shipping costs are not refunded for opened items.",
  "Gift cards cannot be exchanged for cash.",
];

for (const subject of subjects) {
  describe(`Embedder contract: ${subject.name}`, () => {
    let e: Embedder;
    beforeAll(async () => {
      e = await subject.create();
    });
    afterAll(async () => {
      await e?.close?.();
    });

    test("it declares a non-empty id and a positive dimension", () => {
      expect(e.id.length).toBeGreaterThan(0);
      expect(e.dimension).toBeGreaterThan(0);
    });

    test("each document becomes one unit vector of the declared dimension, in input order", async () => {
      const vectors = await e.embedDocuments(documents);
      expect(vectors).toHaveLength(documents.length);
      for (const v of vectors) {
        expect(v).toBeInstanceOf(Float32Array);
        expect(v.length).toBe(e.dimension);
        expect(norm(v)).toBeCloseTo(1, 4);
      }
      const [last] = await e.embedDocuments([documents[2] ?? ""]);
      expect(cosine(vectors[2] ?? new Float32Array(), last ?? new Float32Array())).toBeCloseTo(1, 4);
    });

    test("an empty list embeds to an empty list", async () => {
      expect(await e.embedDocuments([])).toEqual([]);
    });

    test("the same text gives the same vector every time", async () => {
      const [a] = await e.embedDocuments([documents[0] ?? ""]);
      const [b] = await e.embedDocuments([documents[0] ?? ""]);
      expect(Array.from(a ?? [])).toEqual(Array.from(b ?? []));
    });

    test("embedding in a batch equals embedding one at a time", async () => {
      const batched = await e.embedDocuments(documents);
      for (const [i, text] of documents.entries()) {
        const [single] = await e.embedDocuments([text]);
        expect(cosine(batched[i] ?? new Float32Array(), single ?? new Float32Array())).toBeCloseTo(1, 4);
      }
    });

    test("a query becomes a unit vector of the declared dimension", async () => {
      const q = await e.embedQuery("How long do refunds take?");
      expect(q.length).toBe(e.dimension);
      expect(norm(q)).toBeCloseTo(1, 4);
    });

    if (subject.meaningful) {
      test("texts that share most words are closer than unrelated texts", async () => {
        const [a, near, far] = await e.embedDocuments([
          "the cat sat on the warm mat by the door",
          "the cat sat on the mat by the door",
          "quarterly revenue grew in the semiconductor segment",
        ]);
        expect(cosine(a ?? new Float32Array(), near ?? new Float32Array())).toBeGreaterThan(
          cosine(a ?? new Float32Array(), far ?? new Float32Array()),
        );
      });
    }

    test("empty, symbol-only and very long texts still give unit vectors", async () => {
      const long = "retrieval augmented generation ".repeat(2_000);
      for (const v of await e.embedDocuments(["", "😀 ∆ ——", long])) {
        expect(v.length).toBe(e.dimension);
        expect(norm(v)).toBeCloseTo(1, 4);
      }
    });
  });
}
