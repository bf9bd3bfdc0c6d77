/**
 * One contract for every Embedder docchat can build: in-thread and worker-isolated, real npm models and the
 * generated ONNX fixture. A new embedder joins by adding a subject below.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Embedder } from "../../../src/rag/embedder.ts";
import { createInThreadEmbedder, type EmbedderSpec } from "../../../src/rag/embedders/embedder-spec.ts";
import { createWorkerEmbedder } from "../../../src/rag/embedders/worker.embedder.ts";
import { createTinyModelFolder } from "../../fixtures/onnx/tiny-embedding-model.fixture.ts";

const parent = mkdtempSync(join(tmpdir(), "docchat-contract-"));
const onnxSpec: EmbedderSpec = {
  kind: "onnx",
  options: { modelDir: createTinyModelFolder({ parentDir: parent, name: "tiny-minilm" }), batchSize: 2 },
};

const subjects: { name: string; create(): Promise<Embedder> }[] = [
  { name: "onnx (generated model, in-thread)", create: () => createInThreadEmbedder(onnxSpec) },
  { name: "onnx (generated model, worker)", create: () => createWorkerEmbedder(onnxSpec) },
  { name: "use-lite (in-thread)", create: () => createInThreadEmbedder({ kind: "use-lite", options: { batchSize: 2 } }) },
  { name: "use-lite (worker)", create: () => createWorkerEmbedder({ kind: "use-lite" }) },
  { name: "word-vectors (in-thread)", create: () => createInThreadEmbedder({ kind: "word-vectors" }) },
];

afterAll(() => rmSync(parent, { recursive: true, force: true }));

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

    test("empty, symbol-only and very long texts still give unit vectors", async () => {
      const long = "retrieval augmented generation ".repeat(2_000);
      for (const v of await e.embedDocuments(["", "😀 ∆ ——", long])) {
        expect(v.length).toBe(e.dimension);
        expect(norm(v)).toBeCloseTo(1, 4);
      }
    });
  });
}
