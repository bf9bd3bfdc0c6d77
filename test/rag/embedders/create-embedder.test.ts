import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AUTO_FALLBACK, createEmbedder, resolveEmbedderSpec } from "../../../src/rag/embedders/create-embedder.ts";
import { createTinyModelFolder } from "../../fixtures/onnx/tiny-embedding-model.fixture.ts";

const root = mkdtempSync(join(tmpdir(), "docchat-create-"));
const emptyModels = join(root, "empty");
const models = join(root, "models");
mkdirSync(emptyModels);
mkdirSync(models);
const modelDir = createTinyModelFolder({ parentDir: models, name: "tiny-minilm" });
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("auto picks the ONNX model folder found in modelsDir and runs it in a worker", async () => {
  expect(resolveEmbedderSpec({ kind: "auto", modelsDir: models })).toEqual({ kind: "onnx", options: { modelDir } });
  const e = await createEmbedder({ kind: "auto", modelsDir: models });
  expect(e?.id).toBe("onnx:tiny-minilm");
  await e?.close?.();
});

test("auto without a model folder falls back to the measured default (keyword-only)", async () => {
  expect(resolveEmbedderSpec({ kind: "auto", modelsDir: emptyModels })).toEqual(AUTO_FALLBACK);
  expect(AUTO_FALLBACK).toBeNull();
  expect(await createEmbedder({ kind: "auto", modelsDir: join(root, "does-not-exist") })).toBeNull();
});

test("none means keyword-only, and named kinds are honoured", () => {
  expect(resolveEmbedderSpec({ kind: "none", modelsDir: models })).toBeNull();
  expect(resolveEmbedderSpec({ kind: "use-lite", modelsDir: models })).toEqual({ kind: "use-lite" });
  expect(resolveEmbedderSpec({ kind: "word-vectors", modelsDir: emptyModels })).toEqual({ kind: "word-vectors" });
});

test("onnx uses an explicit model path, and explains what is missing when there is no model", async () => {
  expect(resolveEmbedderSpec({ kind: "onnx", modelsDir: emptyModels, modelPath: modelDir })).toEqual({
    kind: "onnx",
    options: { modelDir },
  });
  expect(() => resolveEmbedderSpec({ kind: "onnx", modelsDir: emptyModels })).toThrow(/no ONNX model folder/);
  expect(() => resolveEmbedderSpec({ kind: "onnx", modelsDir: models, modelPath: emptyModels })).toThrow(
    /not a sentence-embedding model folder/,
  );
  const e = await createEmbedder({ kind: "onnx", modelsDir: emptyModels, modelPath: modelDir, isolate: false });
  expect(e?.dimension).toBe(384);
  await e?.close?.();
});
