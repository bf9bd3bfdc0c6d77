import { afterAll, expect, test } from "bun:test";
import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findGgufModels } from "../../src/chat/llm-config.ts";
import { readGgufMetadata } from "../../src/models/gguf-metadata.ts";
import { findGgufFiles, inspectGguf } from "../../src/models/gguf-role.ts";
import { resolveReranker } from "../../src/rag/rerank/create-reranker.ts";
import { writeGguf } from "../fixtures/gguf/write-gguf.ts";
import { sharedModel } from "../helpers/paths.ts";
import { tempDir } from "../helpers/server.ts";

const dir = tempDir("docchat-gguf-role-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the real test GGUF reads as a llama chat model, vocabulary skipped", () => {
  const meta = readGgufMetadata(sharedModel("llama-2-tiny-random.gguf"));
  expect(meta.get("general.architecture")).toBe("llama");
  expect(meta.get("llama.embedding_length")).toBe(8);
  expect(inspectGguf(sharedModel("llama-2-tiny-random.gguf"))).toMatchObject({ role: "chat", architecture: "llama", poolingType: null });
});

test("embedding models are recognised by pooling type or encoder architecture, rerankers by rank pooling or a classifier", () => {
  const cases: [Record<string, string | number | string[]>, string][] = [
    [{ "general.architecture": "bert", "bert.pooling_type": 2 }, "embedding"],
    [{ "general.architecture": "nomic-bert" }, "embedding"],
    [{ "general.architecture": "qwen3", "qwen3.pooling_type": 3, "general.type": "model" }, "embedding"],
    [{ "general.architecture": "bert", "bert.pooling_type": 4 }, "reranker"],
    [{ "general.architecture": "qwen3", "qwen3.classifier.output_labels": ["yes"] }, "reranker"],
    [{ "general.architecture": "qwen3", "general.name": "Qwen3 Embedding (not really)" }, "chat"],
  ];
  for (const [i, [meta, role]] of cases.entries())
    expect(inspectGguf(writeGguf(join(dir, `case-${i}.gguf`), meta)).role).toBe(role as never);
});

test("a file that is not GGUF is refused by the reader and skipped by the folder scan", () => {
  const junk = join(dir, "partial-download.gguf");
  writeFileSync(junk, "not a model");
  expect(() => readGgufMetadata(junk)).toThrow();
  expect(findGgufFiles(dir).some((g) => g.path === junk)).toBe(false);
});

test("the answer model is never an embedding model or a reranker from the models folder, and auto finds the reranker", () => {
  const folder = tempDir("docchat-gguf-pick-");
  try {
    const reranker = writeGguf(join(folder, "a-chat.gguf"), { "general.architecture": "bert", "bert.pooling_type": 4 });
    writeGguf(join(folder, "b-chat.gguf"), { "general.architecture": "bert", "bert.pooling_type": 1 });
    symlinkSync(sharedModel("llama-2-tiny-random.gguf"), join(folder, "z-embedding.gguf"));
    expect(findGgufModels(folder)).toEqual([join(folder, "z-embedding.gguf")]);
    expect(resolveReranker({ reranker: "auto", rerankUrl: "", rerankModel: "", modelsDir: folder })).toEqual({
      kind: "gguf",
      modelPath: reranker,
    });
    expect(resolveReranker({ reranker: "none", rerankUrl: "", rerankModel: "", modelsDir: folder })).toBeNull();
    expect(() =>
      resolveReranker({ reranker: "auto", rerankUrl: "", rerankModel: sharedModel("llama-2-tiny-random.gguf"), modelsDir: folder }),
    ).toThrow(/not a reranker GGUF/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
