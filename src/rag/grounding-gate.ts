import { stem, wordTokens } from "./terms.ts";

/**
 * The grounding gate. A question is answerable when some retrieved passage covers enough of it:
 * coverage = Σ idf(query terms the passage mentions, in any suffix form) / Σ idf(all query terms).
 * Rare words carry the question ("Huguenots", "endowment"), so missing one of them costs far more than
 * missing "year". A term absent from every document gets the largest weight, which is what makes
 * out-of-corpus questions fall below the threshold. With vectors, cosine similarity is blended in
 * (calibrated per embedder) so that paraphrases are not refused for lack of shared words.
 */
/** One deployment's statistics: every weight the gate uses comes from that deployment's own documents. */
export interface TermStats {
  documentFrequencies(deploymentId: string, terms: string[]): Map<string, number>;
  totalChunks(deploymentId: string): number;
}

export type TermWeights = Map<string, number>;

/**
 * BM25's IDF, never negative; a term's frequency is the larger of its exact and folded forms. The corpus size is
 * floored at `minCorpus` chunks: in a deployment of a few chunks every word it contains would otherwise weigh
 * almost nothing and any one word it lacks would outweigh the whole question.
 */
export function termWeights(deploymentId: string, terms: string[], stats: TermStats, minCorpus = 0): TermWeights {
  const n = Math.max(1, minCorpus, stats.totalChunks(deploymentId));
  const df = stats.documentFrequencies(deploymentId, [...terms, ...terms.map(stem)]);
  const weights: TermWeights = new Map();
  for (const t of terms) {
    const f = Math.min(n, Math.max(df.get(t) ?? 0, df.get(stem(t)) ?? 0));
    weights.set(stem(t), Math.max(weights.get(stem(t)) ?? 0, Math.log(1 + (n - f + 0.5) / (f + 0.5))));
  }
  return weights;
}

/** IDF-weighted share of the question's terms that the passage mentions (0..1). */
export function termCoverage(weights: TermWeights, passage: string): number {
  let total = 0;
  for (const w of weights.values()) total += w;
  if (total === 0) return 0;
  const present = new Set(wordTokens(passage).map(stem));
  let covered = 0;
  for (const [t, w] of weights) if (present.has(t)) covered += w;
  return covered / total;
}

/** Maps an embedder's cosine similarities onto 0..1: `low` and below is unrelated, `high` and above is on-topic. */
export interface CosineCalibration {
  low: number;
  high: number;
  /** share of the relevance that comes from the cosine (the rest is term coverage) */
  weight: number;
}

export function blendRelevance(coverage: number, cosine: number | undefined, cal: CosineCalibration | null): number {
  if (cosine === undefined || !cal || cal.weight <= 0) return coverage;
  const c = Math.min(1, Math.max(0, (cosine - cal.low) / (cal.high - cal.low)));
  return (1 - cal.weight) * coverage + cal.weight * c;
}

export function isGrounded(relevance: number, threshold: number): boolean {
  return relevance >= threshold && relevance > 0;
}
