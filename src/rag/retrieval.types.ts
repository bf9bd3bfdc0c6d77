/** One retrieved passage, verbatim, with where it came from and how relevant it is. */
export interface RetrievalHit {
  chunkId: number;
  documentId: string;
  /** the passage exactly as indexed */
  text: string;
  /** document name without its extension */
  source: string;
  headingPath: string;
  pageStart: number | null;
  pageEnd: number | null;
  rowStart: number | null;
  rowEnd: number | null;
  /** fused rank score, 1 = first in every ranking used */
  fused: number;
  /**
   * grounding relevance 0..1: how well this passage covers the question (see grounding-gate.ts); its rerank
   * score when a reranker judged the retrieval
   */
  relevance: number;
  /** cosine similarity to the question, when vectors were searched and this passage was among them */
  cosine?: number;
  /** the reranker's relevance probability 0..1 (see rerank/reranker.ts toProbabilities), when one ran */
  rerankScore?: number;
}

/** What the gate's relevance was judged by: term coverage, coverage blended with calibrated cosine, or the reranker. */
export type JudgedBy = "coverage" | "cosine" | "reranker";

export type RetrievalMode = "hybrid" | "keyword" | "vector";

export interface Retrieval {
  query: string;
  hits: RetrievalHit[];
  /** the best hit's relevance (0 without hits); the gate compares it with the threshold */
  relevance: number;
  /** the query's term weights (stemmed term → IDF in this deployment), for composing an extractive answer */
  weights: Map<string, number>;
  /** which rankings actually ran */
  used: { keyword: boolean; vector: boolean; reranker: boolean };
  judgedBy: JudgedBy;
}
