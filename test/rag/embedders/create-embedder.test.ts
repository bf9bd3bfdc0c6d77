import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AUTO_FALLBACK, createEmbedder, type EmbedderConfig, resolveEmbedder } from "../../../src/rag/embedders/create-embedder.ts";
import { writeGguf } from "../../fixtures/gguf/write-gguf.ts";
import { createTinyModelFolder } from "../../fixtures/onnx/tiny-embedding-model.fixture.ts";
import { sharedModel } from "../../helpers/paths.ts";

const root = mkdtempSync(join(tmpdir(), "docchat-create-"));
const emptyModels = join(root, "empty");
const models = join(root, "models");
const ggufModels = join(root, "gguf-models");
mkdirSync(emptyModels);
mkdirSync(models);
mkdirSync(ggufModels);
const modelDir = createTinyModelFolder({ parentDir: models, name: "tiny-minilm" });
// Names that lie: the embedding model is called like a chat model and the other way round. Metadata decides.
const embeddingGguf = writeGguf(join(ggufModels, "assistant-chat-7b.gguf"), {
  "general.architecture": "nomic-bert",
  "nomic-bert.pooling_type": 1,
});
symlinkSync(sharedModel("llama-2-tiny-random.gguf"), join(ggufModels, "embed-text.gguf"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const remote = {
  url: "http://127.0.0.1:9/v1",
  model: "nomic-embed-text",
  batchSize: 8,
  concurrency: 1,
  timeoutMs: 1000,
  retries: 0,
  queryPrefix: "auto",
  documentPrefix: "auto",
};

test("auto picks the ONNX model folder found in modelsDir and runs it in a worker", async () => {
  expect(resolveEmbedder({ kind: "auto", modelsDir: models })).toEqual({ kind: "onnx", spec: { kind: "onnx", options: { modelDir } } });
  const e = await createEmbedder({ kind: "auto", modelsDir: models });
  expect(e?.id).toBe("onnx:tiny-minilm");
  await e?.close?.();
});

test("auto without any model falls back to keyword-only retrieval", async () => {
  expect(resolveEmbedder({ kind: "auto", modelsDir: emptyModels })).toEqual(AUTO_FALLBACK);
  expect(AUTO_FALLBACK).toBeNull();
  expect(await createEmbedder({ kind: "auto", modelsDir: join(root, "does-not-exist") })).toBeNull();
});

test("auto picks an embedding GGUF by its metadata, not its file name, and leaves chat GGUFs alone", () => {
  expect(resolveEmbedder({ kind: "auto", modelsDir: ggufModels })).toEqual({
    kind: "gguf",
    modelPath: embeddingGguf,
    prefixes: { query: "", document: "" },
  });
  const onlyChat = join(root, "chat-only");
  mkdirSync(onlyChat);
  symlinkSync(sharedModel("llama-2-tiny-random.gguf"), join(onlyChat, "nomic-embed-text.gguf"));
  expect(resolveEmbedder({ kind: "auto", modelsDir: onlyChat })).toBeNull();
});

test("auto prefers the embeddings server when DOCCHAT_EMBEDDINGS_URL is set, with the model family's prefixes", () => {
  const cfg: EmbedderConfig = { kind: "auto", modelsDir: models, remote };
  expect(resolveEmbedder(cfg)).toEqual({
    kind: "openai",
    url: remote.url,
    model: "nomic-embed-text",
    prefixes: { query: "search_query: ", document: "search_document: " },
  });
  const e5 = resolveEmbedder({ ...cfg, remote: { ...remote, model: "intfloat/multilingual-e5-large" } });
  expect(e5).toMatchObject({ prefixes: { query: "query: ", document: "passage: " } });
  const overridden = resolveEmbedder({ ...cfg, remote: { ...remote, queryPrefix: "Q> ", documentPrefix: "none" } });
  expect(overridden).toMatchObject({ prefixes: { query: "Q> ", document: "" } });
});

test("a misconfigured embedder names the setting that is missing", () => {
  expect(() => resolveEmbedder({ kind: "openai", modelsDir: models })).toThrow(/DOCCHAT_EMBEDDINGS_URL/);
  expect(() => resolveEmbedder({ kind: "auto", modelsDir: models, remote: { ...remote, model: "" } })).toThrow(/DOCCHAT_EMBEDDINGS_MODEL/);
  expect(() => resolveEmbedder({ kind: "gguf", modelsDir: emptyModels })).toThrow(/no embedding GGUF/);
});

test("a GGUF named explicitly is used as the embedder whatever its metadata says", () => {
  const path = sharedModel("llama-2-tiny-random.gguf");
  expect(resolveEmbedder({ kind: "gguf", modelsDir: emptyModels, modelPath: path })).toEqual({
    kind: "gguf",
    modelPath: path,
    prefixes: { query: "", document: "" },
  });
});

test("onnx uses an explicit model path, and explains what is missing when there is no model", async () => {
  expect(resolveEmbedder({ kind: "onnx", modelsDir: emptyModels, modelPath: modelDir })).toEqual({
    kind: "onnx",
    spec: { kind: "onnx", options: { modelDir } },
  });
  expect(() => resolveEmbedder({ kind: "onnx", modelsDir: emptyModels })).toThrow(/no ONNX model folder/);
  expect(() => resolveEmbedder({ kind: "onnx", modelsDir: models, modelPath: emptyModels })).toThrow(
    /not a sentence-embedding model folder/,
  );
  const e = await createEmbedder({ kind: "onnx", modelsDir: emptyModels, modelPath: modelDir, isolate: false });
  expect(e?.dimension).toBe(384);
  await e?.close?.();
});
