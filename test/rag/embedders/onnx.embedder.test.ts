import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Embedder } from "../../../src/rag/embedder.ts";
import { createOnnxEmbedder } from "../../../src/rag/embedders/onnx.embedder.ts";
import { findModelFolders, inspectModelFolder } from "../../../src/rag/embedders/onnx-model-folder.ts";
import { createTinyModelFolder } from "../../fixtures/onnx/tiny-embedding-model.fixture.ts";

const norm = (v: Float32Array) => Math.hypot(...v);
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
const texts = [
  "Refunds are issued within 14 days of a return.",
  "Gift cards cannot be exchanged for cash.",
  "A much longer passage about shipping costs, opened items, original payment methods and the many exceptions that apply to them.",
  "Short.",
];

let parent: string;
let embedder: Embedder;

beforeAll(async () => {
  parent = mkdtempSync(join(tmpdir(), "docchat-onnx-test-"));
  // Any network access during loading would be a bug: the model must load from disk only.
  const fetchSpy = spyOn(globalThis, "fetch").mockImplementation((() => {
    throw new Error("network access attempted");
  }) as unknown as typeof fetch);
  try {
    embedder = await createOnnxEmbedder({ modelDir: createTinyModelFolder({ parentDir: parent, name: "tiny-minilm" }), batchSize: 3 });
    expect(fetchSpy).not.toHaveBeenCalled();
  } finally {
    fetchSpy.mockRestore();
  }
});

afterAll(async () => {
  await embedder?.close?.();
  rmSync(parent, { recursive: true, force: true });
});

// Stable vectors, batches equal to one text at a time and the empty list: the embedder contract suite runs this
// same generated model (embedder.contract.test.ts). Here: what only an ONNX model folder has.
describe("createOnnxEmbedder on a generated model with the real MiniLM tokenizer", () => {
  test("it is named after the folder and reports the model's output width", () => {
    expect(embedder.id).toBe("onnx:tiny-minilm");
    expect(embedder.dimension).toBe(384);
  });

  test("vectors are unit length and have the reported dimension", async () => {
    for (const v of await embedder.embedDocuments(texts)) {
      expect(v.length).toBe(384);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });

  test("different texts give different vectors", async () => {
    const [a, b] = await embedder.embedDocuments([texts[0] ?? "", texts[1] ?? ""]);
    expect(cosine(a ?? new Float32Array(), b ?? new Float32Array())).toBeLessThan(0.99);
  });
});

describe("model folder conventions", () => {
  test("a query prefix from docchat.json is prepended to queries only", async () => {
    const dir = createTinyModelFolder({ parentDir: parent, name: "prefixed", docchatJson: { queryPrefix: "query: " } });
    const e = await createOnnxEmbedder({ modelDir: dir });
    const [asDocument] = await e.embedDocuments(["query: where is my refund"]);
    const asQuery = await e.embedQuery("where is my refund");
    const [unprefixed] = await e.embedDocuments(["where is my refund"]);
    expect(cosine(asQuery, asDocument ?? new Float32Array())).toBeCloseTo(1, 5);
    expect(cosine(asQuery, unprefixed ?? new Float32Array())).toBeLessThan(0.999);
    await e.close?.();
  });

  test("model.onnx at the folder root loads like the onnx/ layout", async () => {
    const dir = createTinyModelFolder({ parentDir: parent, name: "root-layout", layout: "root" });
    const e = await createOnnxEmbedder({ modelDir: dir });
    const [expected] = await embedder.embedDocuments([texts[0] ?? ""]);
    const [actual] = await e.embedDocuments([texts[0] ?? ""]);
    expect(cosine(actual ?? new Float32Array(), expected ?? new Float32Array())).toBeCloseTo(1, 5);
    await e.close?.();
  });

  test("pooling comes from 1_Pooling/config.json, and cls pooling takes the first token's vector", async () => {
    const dir = createTinyModelFolder({ parentDir: parent, name: "cls-pooled" });
    writeFileSync(join(dir, "1_Pooling/config.json"), JSON.stringify({ pooling_mode_cls_token: true, pooling_mode_mean_tokens: false }));
    expect(inspectModelFolder(dir)?.pooling).toBe("cls");
    const e = await createOnnxEmbedder({ modelDir: dir });
    // Every text starts with [CLS], and this graph has no attention, so cls pooling gives one vector for all.
    const [a, b] = await e.embedDocuments([texts[0] ?? "", texts[1] ?? ""]);
    expect(cosine(a ?? new Float32Array(), b ?? new Float32Array())).toBeCloseTo(1, 5);
    await e.close?.();
  });

  test("bge English folders get the bge query instruction, sentence-transformers' max_seq_length is read", () => {
    const dir = createTinyModelFolder({ parentDir: parent, name: "bge-small-en-v1.5" });
    const folder = inspectModelFolder(dir);
    expect(folder?.queryPrefix).toBe("Represent this sentence for searching relevant passages: ");
    expect(folder?.documentPrefix).toBe("");
    expect(folder?.maxSeqLength).toBe(256);
  });

  test("findModelFolders lists model folders by name and skips folders that are not models", () => {
    const models = mkdtempSync(join(tmpdir(), "docchat-models-"));
    createTinyModelFolder({ parentDir: models, name: "b-model" });
    createTinyModelFolder({ parentDir: models, name: "a-model", layout: "root" });
    mkdirSync(join(models, "notes"));
    writeFileSync(join(models, "README.md"), "not a model");
    expect(findModelFolders(models).map((f) => f.name)).toEqual(["a-model", "b-model"]);
    expect(findModelFolders(join(models, "missing"))).toEqual([]);
    rmSync(models, { recursive: true, force: true });
  });

  test("a folder without a model is refused with a message naming what is missing", async () => {
    const empty = mkdtempSync(join(tmpdir(), "docchat-empty-"));
    await expect(createOnnxEmbedder({ modelDir: empty })).rejects.toThrow(/not a sentence-embedding model folder/);
    rmSync(empty, { recursive: true, force: true });
  });
});
