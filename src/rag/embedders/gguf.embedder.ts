/**
 * A GGUF embedding model (nomic-embed-text, bge, e5, Qwen3-Embedding, ... as GGUF) run in this process through
 * node-llama-cpp's embedding context. llama.cpp computes on its own threads and node-llama-cpp awaits it, so the
 * event loop stays free while a batch is embedded.
 */
import { basename } from "node:path";
import { defaultLlamaThreads, loadGgufModel } from "../../models/llama-runtime.ts";
import type { Embedder } from "../embedder.ts";
import { l2Normalize } from "./l2-normalise.ts";
import type { ModelPrefixes } from "./model-prefixes.ts";

export interface GgufEmbedderOptions {
  modelPath: string;
  prefixes: ModelPrefixes;
  /** llama.cpp threads; half the cores when absent (the HTTP process needs the rest) */
  threads?: number;
  /** tokens per text; longer texts are cut (the model's training context when absent) */
  contextSize?: number;
}

export const ggufModelName = (modelPath: string) => basename(modelPath).replace(/\.gguf$/i, "");

export async function createGgufEmbedder(opts: GgufEmbedderOptions): Promise<Embedder> {
  const model = await loadGgufModel(opts.modelPath);
  const context = await model.createEmbeddingContext({
    contextSize: opts.contextSize ?? Math.min(2048, model.trainContextSize),
    threads: opts.threads ?? defaultLlamaThreads(),
  });
  // Texts longer than the context are cut to it: a chunk's start carries its topic, and failing the whole
  // document for one long passage would lose more than the tail.
  const limit = context.model.trainContextSize > 0 ? Math.min(context.model.trainContextSize, opts.contextSize ?? 2048) - 8 : 504;
  async function embedOne(text: string): Promise<Float32Array> {
    let tokens = model.tokenize(text.trim() === "" ? "." : text);
    if (tokens.length > limit) tokens = tokens.slice(0, limit);
    const { vector } = await context.getEmbeddingFor(tokens);
    return l2Normalize(Float32Array.from(vector));
  }
  const dimension = (await embedOne("dimension probe")).length;
  let queue: Promise<unknown> = Promise.resolve();
  // One context evaluates one text at a time; callers from training and chat take turns.
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };
  return {
    id: `gguf:${ggufModelName(opts.modelPath)}`,
    dimension,
    embedDocuments: (texts) =>
      serial(async () => {
        const out: Float32Array[] = [];
        for (const t of texts) out.push(await embedOne(opts.prefixes.document + t));
        return out;
      }),
    embedQuery: (text) => serial(() => embedOne(opts.prefixes.query + text)),
    async close() {
      await context.dispose();
      await model.dispose();
    },
  };
}
