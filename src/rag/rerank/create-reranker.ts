/**
 * Picks the reranker from configuration. `auto`: a rerank server when DOCCHAT_RERANK_URL is set, else a reranker
 * GGUF (told apart by its metadata) in the models folder or at DOCCHAT_RERANK_MODEL, else none.
 */
import type { Config } from "../../config/index.ts";
import { findGgufFiles, inspectGguf } from "../../models/gguf-role.ts";
import type { CircuitBreaker } from "../../net/circuit-breaker.ts";
import type { Reranker } from "./reranker.ts";

export type RerankerChoice = { kind: "http"; url: string; model: string } | { kind: "gguf"; modelPath: string };

export function resolveReranker(config: Pick<Config, "reranker" | "rerankUrl" | "rerankModel" | "modelsDir">): RerankerChoice | null {
  const kind = config.reranker;
  if (kind === "none") return null;
  const ggufPath = /\.gguf$/i.test(config.rerankModel) ? config.rerankModel : undefined;
  if (kind === "http" || (kind === "auto" && config.rerankUrl)) {
    if (!config.rerankUrl) throw new Error("DOCCHAT_RERANKER=http needs DOCCHAT_RERANK_URL (e.g. http://127.0.0.1:8081/v1)");
    return { kind: "http", url: config.rerankUrl, model: config.rerankModel };
  }
  if (ggufPath) {
    if (kind === "auto" && inspectGguf(ggufPath).role !== "reranker")
      throw new Error(`${ggufPath} is not a reranker GGUF (its metadata has no rank pooling or classifier head)`);
    return { kind: "gguf", modelPath: ggufPath };
  }
  const found = findGgufFiles(config.modelsDir).find((g) => g.role === "reranker");
  if (found) return { kind: "gguf", modelPath: found.path };
  if (kind === "gguf")
    throw new Error(
      `no reranker GGUF in ${config.modelsDir}; put one there (e.g. bge-reranker-v2-m3-Q8_0.gguf) or set DOCCHAT_RERANK_MODEL`,
    );
  return null;
}

export function describeReranker(choice: RerankerChoice | null): {
  where: "local" | "remote" | "none";
  kind: string;
  model: string | null;
  url?: string;
} {
  if (!choice) return { where: "none", kind: "none", model: null };
  if (choice.kind === "http") return { where: "remote", kind: "http", model: choice.model || null, url: choice.url };
  return { where: "local", kind: "gguf", model: choice.modelPath };
}

export async function createReranker(config: Config, opts: { breaker?: CircuitBreaker } = {}): Promise<Reranker | null> {
  const choice = resolveReranker(config);
  if (!choice) return null;
  if (choice.kind === "http") {
    const { createHttpReranker } = await import("./http.reranker.ts");
    return createHttpReranker({
      url: choice.url,
      model: choice.model,
      apiKey: config.rerankApiKey || undefined,
      scores: config.rerankScores,
      concurrency: config.embeddingsConcurrency,
      timeoutMs: config.embeddingsTimeoutMs,
      // A question waits on this call: one quick retry, then keyword/embedding judgement takes over.
      retries: Math.min(1, config.embeddingsRetries),
      breaker: opts.breaker,
    });
  }
  const { createGgufReranker } = await import("./gguf.reranker.ts");
  return createGgufReranker({ modelPath: choice.modelPath, threads: config.llmThreads || undefined });
}
