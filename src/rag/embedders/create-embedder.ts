/**
 * Picks the embedder from configuration. `auto`: an embeddings server when DOCCHAT_EMBEDDINGS_URL is set, else an
 * ONNX sentence-embedding folder in modelsDir, else an embedding GGUF there (told from chat models by its
 * metadata), else keyword-only retrieval (null). The npm embedders that once filled that last slot measured worse
 * than keyword-only retrieval on SciFact and were removed (BENCHMARKS.md, "Embedders and retrieval quality").
 */
import { basename } from "node:path";
import type { Config } from "../../config/index.ts";
import { findGgufFiles, inspectGguf } from "../../models/gguf-role.ts";
import type { CircuitBreaker } from "../../net/circuit-breaker.ts";
import type { Embedder } from "../embedder.ts";
import { createInThreadEmbedder, type EmbedderSpec } from "./embedder-spec.ts";
import { type ModelPrefixes, resolvePrefixes } from "./model-prefixes.ts";
import { findModelFolders, inspectModelFolder } from "./onnx-model-folder.ts";
import { createWorkerEmbedder } from "./worker.embedder.ts";

export type EmbedderKind = Config["embedder"];

export interface RemoteEmbedderConfig {
  url: string;
  model: string;
  apiKey?: string;
  batchSize: number;
  concurrency: number;
  timeoutMs: number;
  retries: number;
  /** "auto" (model family), "none", or the literal prefix */
  queryPrefix: string;
  documentPrefix: string;
  /** the server's circuit (app.ts's registry); one of its own when absent */
  breaker?: CircuitBreaker;
}

export interface EmbedderConfig {
  kind: EmbedderKind;
  /** folder scanned for ONNX model folders and embedding GGUF files */
  modelsDir: string;
  /** an explicit ONNX model folder or .gguf file; wins over modelsDir */
  modelPath?: string;
  /** run an ONNX model in a Bun Worker so inference never stalls the event loop; true unless a CLI job opts out */
  isolate?: boolean;
  remote?: RemoteEmbedderConfig;
  /** the dimension the index recorded for an embedder id (lets a remote embedder start while its server is down) */
  knownDimension?: (embedderId: string) => number | undefined;
  threads?: number;
  /** prefix overrides for GGUF models (same meaning as in RemoteEmbedderConfig) */
  queryPrefix?: string;
  documentPrefix?: string;
}

/** What `auto` uses when nothing else is configured or found: null means keyword-only retrieval. */
export const AUTO_FALLBACK = null;

export type EmbedderChoice =
  | { kind: "onnx"; spec: EmbedderSpec }
  | { kind: "openai"; url: string; model: string; prefixes: ModelPrefixes }
  | { kind: "gguf"; modelPath: string; prefixes: ModelPrefixes };

const prefixSetting = (v: string | undefined) => (v === undefined || v === "auto" ? undefined : v === "none" ? "" : v);
const prefixesOf = (model: string, q?: string, d?: string) =>
  resolvePrefixes(model, { query: prefixSetting(q), document: prefixSetting(d) });

function onnxChoice(cfg: EmbedderConfig): EmbedderChoice | null {
  if (cfg.modelPath && !/\.gguf$/i.test(cfg.modelPath)) {
    if (!inspectModelFolder(cfg.modelPath)) {
      throw new Error(`${cfg.modelPath} is not a sentence-embedding model folder (needs config.json, tokenizer.json, onnx/model.onnx)`);
    }
    return { kind: "onnx", spec: { kind: "onnx", options: { modelDir: cfg.modelPath } } };
  }
  const [first] = findModelFolders(cfg.modelsDir);
  return first ? { kind: "onnx", spec: { kind: "onnx", options: { modelDir: first.dir } } } : null;
}

function ggufChoice(cfg: EmbedderConfig, explicit: boolean): EmbedderChoice | null {
  let modelPath: string | undefined;
  if (cfg.modelPath && /\.gguf$/i.test(cfg.modelPath)) {
    // Named explicitly: trusted even when its metadata does not say "embedding" (a decoder used for embeddings).
    modelPath = cfg.modelPath;
    if (!explicit && inspectGguf(modelPath).role !== "embedding") return null;
  } else {
    modelPath = findGgufFiles(cfg.modelsDir).find((g) => g.role === "embedding")?.path;
  }
  if (!modelPath) return null;
  return { kind: "gguf", modelPath, prefixes: prefixesOf(basename(modelPath), cfg.queryPrefix, cfg.documentPrefix) };
}

function remoteChoice(cfg: EmbedderConfig): EmbedderChoice {
  const r = cfg.remote;
  if (!r?.url) throw new Error("DOCCHAT_EMBEDDER=openai needs DOCCHAT_EMBEDDINGS_URL (e.g. http://127.0.0.1:11434/v1)");
  if (!r.model)
    throw new Error("DOCCHAT_EMBEDDINGS_URL needs DOCCHAT_EMBEDDINGS_MODEL (the model name the server knows, e.g. nomic-embed-text)");
  return { kind: "openai", url: r.url, model: r.model, prefixes: prefixesOf(r.model, r.queryPrefix, r.documentPrefix) };
}

/** The decision alone, without loading anything (for `docchat models`, doctor and tests). */
export function resolveEmbedder(cfg: EmbedderConfig): EmbedderChoice | null {
  switch (cfg.kind) {
    case "none":
      return null;
    case "openai":
      return remoteChoice(cfg);
    case "gguf": {
      const choice = ggufChoice(cfg, true);
      if (!choice)
        throw new Error(
          `no embedding GGUF in ${cfg.modelsDir}; put one there (e.g. nomic-embed-text-v1.5.Q8_0.gguf) or set DOCCHAT_EMBEDDER_MODEL`,
        );
      return choice;
    }
    case "onnx": {
      const choice = onnxChoice(cfg);
      if (!choice)
        throw new Error(`no ONNX model folder in ${cfg.modelsDir}; put one there (e.g. bge-small-en-v1.5) or set the model path`);
      return choice;
    }
    case "auto":
      if (cfg.remote?.url) return remoteChoice(cfg);
      return onnxChoice(cfg) ?? ggufChoice(cfg, false) ?? AUTO_FALLBACK;
  }
}

/** Where the active embedder runs and what it is, for people (models, doctor, console). */
export function describeEmbedder(choice: EmbedderChoice | null): {
  where: "local" | "remote" | "none";
  kind: string;
  model: string | null;
} {
  if (!choice) return { where: "none", kind: "none", model: null };
  if (choice.kind === "openai") return { where: "remote", kind: "openai", model: choice.model };
  if (choice.kind === "gguf") return { where: "local", kind: "gguf", model: choice.modelPath };
  return { where: "local", kind: "onnx", model: choice.spec.options.modelDir };
}

export async function createEmbedder(cfg: EmbedderConfig): Promise<Embedder | null> {
  const choice = resolveEmbedder(cfg);
  if (!choice) return null;
  if (choice.kind === "openai") {
    const r = cfg.remote as RemoteEmbedderConfig;
    const { createOpenAiEmbedder, openAiEmbedderId } = await import("./openai.embedder.ts");
    return createOpenAiEmbedder({ ...r, prefixes: choice.prefixes, knownDimension: cfg.knownDimension?.(openAiEmbedderId(r.model)) });
  }
  if (choice.kind === "gguf") {
    const { createGgufEmbedder } = await import("./gguf.embedder.ts");
    return createGgufEmbedder({ modelPath: choice.modelPath, prefixes: choice.prefixes, threads: cfg.threads });
  }
  return cfg.isolate === false ? createInThreadEmbedder(choice.spec) : createWorkerEmbedder(choice.spec);
}

/** The embedder configuration the server, the CLI and doctor all use. */
export function embedderConfig(config: Config): EmbedderConfig {
  return {
    kind: config.embedder,
    modelsDir: config.modelsDir,
    modelPath: config.embedderModel || undefined,
    threads: config.llmThreads || undefined,
    queryPrefix: config.embeddingsQueryPrefix,
    documentPrefix: config.embeddingsDocumentPrefix,
    remote: config.embeddingsUrl
      ? {
          url: config.embeddingsUrl,
          model: config.embeddingsModel,
          apiKey: config.embeddingsApiKey || undefined,
          batchSize: config.embeddingsBatchSize,
          concurrency: config.embeddingsConcurrency,
          timeoutMs: config.embeddingsTimeoutMs,
          retries: config.embeddingsRetries,
          queryPrefix: config.embeddingsQueryPrefix,
          documentPrefix: config.embeddingsDocumentPrefix,
        }
      : undefined,
  };
}
