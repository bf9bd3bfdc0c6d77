/**
 * Picks the embedder from configuration. `auto` prefers a real sentence-embedding model the owner dropped into
 * modelsDir; without one it falls back to keyword-only retrieval (null), because on SciFact neither out-of-the-box
 * npm embedder improved hybrid retrieval over BM25 alone — both made it worse (BENCHMARKS.md, "Embedders and
 * retrieval quality (SciFact)"). They stay selectable explicitly.
 */
import type { Embedder } from "../embedder.ts";
import { createInThreadEmbedder, type EmbedderSpec } from "./embedder-spec.ts";
import { findModelFolders, inspectModelFolder } from "./onnx-model-folder.ts";
import { createWorkerEmbedder } from "./worker.embedder.ts";

export type EmbedderKind = "auto" | "none" | "onnx" | "use-lite" | "word-vectors";

export interface EmbedderConfig {
  kind: EmbedderKind;
  /** folder scanned for ONNX model folders (one sub-folder per model) */
  modelsDir: string;
  /** an explicit ONNX model folder; wins over modelsDir */
  modelPath?: string;
  /** run the model in a Bun Worker so inference never stalls the event loop; true unless a CLI job opts out */
  isolate?: boolean;
}

/** What `auto` uses when modelsDir holds no ONNX model: null means keyword-only retrieval. */
export const AUTO_FALLBACK: EmbedderSpec | null = null;

function onnxSpec(cfg: EmbedderConfig): EmbedderSpec | null {
  if (cfg.modelPath) {
    if (!inspectModelFolder(cfg.modelPath)) {
      throw new Error(`${cfg.modelPath} is not a sentence-embedding model folder (needs config.json, tokenizer.json, onnx/model.onnx)`);
    }
    return { kind: "onnx", options: { modelDir: cfg.modelPath } };
  }
  const [first] = findModelFolders(cfg.modelsDir);
  return first ? { kind: "onnx", options: { modelDir: first.dir } } : null;
}

/** The decision alone, without loading anything (for `docchat models` and tests). */
export function resolveEmbedderSpec(cfg: EmbedderConfig): EmbedderSpec | null {
  switch (cfg.kind) {
    case "none":
      return null;
    case "use-lite":
    case "word-vectors":
      return { kind: cfg.kind };
    case "onnx": {
      const spec = onnxSpec(cfg);
      if (!spec) throw new Error(`no ONNX model folder in ${cfg.modelsDir}; put one there (e.g. bge-small-en-v1.5) or set the model path`);
      return spec;
    }
    case "auto":
      return onnxSpec(cfg) ?? AUTO_FALLBACK;
  }
}

export async function createEmbedder(cfg: EmbedderConfig): Promise<Embedder | null> {
  const spec = resolveEmbedderSpec(cfg);
  if (!spec) return null;
  return cfg.isolate === false ? createInThreadEmbedder(spec) : createWorkerEmbedder(spec);
}
