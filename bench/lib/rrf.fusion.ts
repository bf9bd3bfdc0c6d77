/**
 * Reciprocal Rank Fusion (Cormack et al. 2009): score(d) = Σ weight_i / (k + rank_i(d)), ranks from 1.
 * Rank-based, so BM25 scores and cosine similarities never need to be put on one scale.
 */
export interface RankedList {
  ids: string[];
  weight?: number;
}

export function rrfFuse(lists: RankedList[], { k = 60, limit = 100 }: { k?: number; limit?: number } = {}): string[] {
  const scores = new Map<string, number>();
  for (const { ids, weight = 1 } of lists) {
    ids.forEach((id, i) => {
      scores.set(id, (scores.get(id) ?? 0) + weight / (k + i + 1));
    });
  }
  return [...scores.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([id]) => id);
}
