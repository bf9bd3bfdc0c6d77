/**
 * Weighted Reciprocal Rank Fusion (Cormack et al. 2009): score(d) = Σ w_i / (k + rank_i(d)), ranks from 1.
 * Rank-based, so BM25 scores and cosine distances never have to share a scale.
 */
export interface RankedIds {
  ids: number[];
  weight: number;
}

export function fuseByRank(lists: RankedIds[], k = 60): { id: number; score: number }[] {
  const scores = new Map<number, number>();
  for (const { ids, weight } of lists) {
    if (weight <= 0) continue;
    for (const [i, id] of ids.entries()) scores.set(id, (scores.get(id) ?? 0) + weight / (k + i + 1));
  }
  // Normalised so that 1 means "first in every list that counts".
  const best = lists.reduce((s, l) => s + (l.weight > 0 && l.ids.length > 0 ? l.weight / (k + 1) : 0), 0) || 1;
  return [...scores.entries()].map(([id, score]) => ({ id, score: score / best })).sort((a, b) => b.score - a.score || a.id - b.id);
}
