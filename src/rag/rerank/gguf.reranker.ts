/**
 * A reranker GGUF (bge-reranker-v2-m3, jina-reranker, Qwen3-Reranker, ... converted by llama.cpp with pooling
 * type "rank") run in this process through node-llama-cpp's ranking context, which already returns the sigmoid
 * probability in 0..1. A GGUF without a classification head is refused when the context is created.
 */
import { basename } from "node:path";
import { defaultLlamaThreads, loadGgufModel } from "../../models/llama-runtime.ts";
import type { Reranker } from "./reranker.ts";

export async function createGgufReranker(opts: { modelPath: string; threads?: number; contextSize?: number }): Promise<Reranker> {
  const model = await loadGgufModel(opts.modelPath);
  let context: Awaited<ReturnType<typeof model.createRankingContext>>;
  try {
    context = await model.createRankingContext({
      contextSize: opts.contextSize ?? Math.min(2048, model.trainContextSize),
      threads: opts.threads ?? defaultLlamaThreads(),
    });
  } catch (e) {
    await model.dispose();
    throw new Error(`${basename(opts.modelPath)} cannot rerank: ${(e as Error).message}`);
  }
  let queue: Promise<unknown> = Promise.resolve();
  return {
    id: `gguf:${basename(opts.modelPath).replace(/\.gguf$/i, "")}`,
    rerank(query, documents) {
      // One context ranks one batch at a time; long passages are ranked by their best window, never refused.
      const run = queue.then(() => context.rankAll(query, documents, { onOverflow: "maxChunk" }));
      queue = run.catch(() => undefined);
      return run;
    },
    async close() {
      await context.dispose();
      await model.dispose();
    },
  };
}
