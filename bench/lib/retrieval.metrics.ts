/** Standard IR metrics over a ranked list of ids and graded judgments (BEIR/pytrec_eval definitions). */

/** nDCG@k with linear gain (rel / log2(rank + 1)), as pytrec_eval computes it for BEIR. */
export function ndcgAt(ranked: string[], rels: Map<string, number>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    dcg += (rels.get(id) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...rels.values()].filter((r) => r > 0).sort((a, b) => b - a);
  const idcg = ideal.slice(0, k).reduce((sum, r, i) => sum + r / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Fraction of the relevant ids found in the top k. */
export function recallAt(ranked: string[], rels: Map<string, number>, k: number): number {
  const relevant = [...rels.entries()].filter(([, r]) => r > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

export interface RunScores {
  ndcg10: number;
  recall10: number;
  recall100: number;
}

/** Averages the metrics over every judged query; a query with no ranking counts as zero. */
export function scoreRun(run: Map<string, string[]>, qrels: Map<string, Map<string, number>>, queryIds: string[]): RunScores {
  let ndcg10 = 0;
  let recall10 = 0;
  let recall100 = 0;
  for (const qid of queryIds) {
    const rels = qrels.get(qid) ?? new Map<string, number>();
    const ranked = run.get(qid) ?? [];
    ndcg10 += ndcgAt(ranked, rels, 10);
    recall10 += recallAt(ranked, rels, 10);
    recall100 += recallAt(ranked, rels, 100);
  }
  const n = Math.max(1, queryIds.length);
  return { ndcg10: ndcg10 / n, recall10: recall10 / n, recall100: recall100 / n };
}
