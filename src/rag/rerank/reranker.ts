/**
 * Scores how well each passage answers a query, jointly (a cross-encoder reads query and passage together), which
 * is a far better answerability signal than shared words or cosine similarity. Implementations: rerank/.
 */
export interface Reranker {
  /** stable identifier, e.g. "http:bge-reranker-v2-m3" or "gguf:bge-reranker-v2-m3-Q8_0" */
  readonly id: string;
  /**
   * One score per document, in input order, each in 0..1: the probability the passage is relevant to the query
   * (see toProbability for how raw server scores are mapped).
   */
  rerank(query: string, documents: string[], opts?: { signal?: AbortSignal }): Promise<number[]>;
  close?(): Promise<void>;
}

/**
 * The documented mapping of server scores onto 0..1. Cross-encoders are trained with a sigmoid on one logit, so
 * the sigmoid of the raw logit is the model's own relevance probability. TEI (by default), vLLM, Jina and Cohere
 * return that probability already; llama.cpp's server returns the raw logit. A response with any score outside
 * 0..1 can only be logits, so the whole response is mapped through the sigmoid; otherwise it is kept as is
 * (DOCCHAT_RERANK_SCORES=logit|probability says it outright, for a server whose logits all happen to fall in 0..1).
 */
export function toProbabilities(scores: number[], kind: "auto" | "probability" | "logit" = "auto"): number[] {
  const logits = kind === "logit" || (kind === "auto" && scores.some((s) => s < 0 || s > 1));
  return scores.map((s) => (logits ? 1 / (1 + Math.exp(-s)) : Math.min(1, Math.max(0, s))));
}
