/**
 * Which retrieval mode the service runs in, as owners need to know it to set a refusal threshold: the gate's
 * score means different things in each (docs/models.md, "Refusal thresholds").
 */
import type { Config } from "../config/index.ts";
import { describeEmbedder, embedderConfig, resolveEmbedder } from "./embedders/create-embedder.ts";
import { describeReranker, resolveReranker } from "./rerank/create-reranker.ts";

export type RetrievalModeName = "keyword" | "embeddings" | "reranker";

export interface RetrievalModeInfo {
  mode: RetrievalModeName;
  /** what the gate's score is in this mode */
  judged_by: string;
  embedder: ReturnType<typeof describeEmbedder>;
  reranker: ReturnType<typeof describeReranker>;
  /** the global default threshold for this mode (a deployment's own threshold wins) */
  default_threshold: number;
  /** configuration problems that keep a configured model out of use */
  problems: string[];
}

export function retrievalMode(config: Config): RetrievalModeInfo {
  const problems: string[] = [];
  const attempt = <T>(fn: () => T): T | null => {
    try {
      return fn();
    } catch (e) {
      problems.push((e as Error).message);
      return null;
    }
  };
  const embedder = describeEmbedder(attempt(() => resolveEmbedder(embedderConfig(config))));
  const reranker = describeReranker(attempt(() => resolveReranker(config)));
  const mode: RetrievalModeName = reranker.where !== "none" ? "reranker" : embedder.where !== "none" ? "embeddings" : "keyword";
  const judged_by =
    mode === "reranker"
      ? "the reranker's relevance probability (0..1)"
      : mode === "embeddings"
        ? "answerability: the question's IDF-weighted words in one sentence that holds the kind of answer asked for (blended with cosine where calibrated)"
        : "answerability: the question's IDF-weighted words in one sentence that holds the kind of answer asked for";
  return {
    mode,
    judged_by,
    embedder,
    reranker,
    default_threshold: mode === "reranker" ? config.rerankThreshold : config.refusalThreshold,
    problems,
  };
}
