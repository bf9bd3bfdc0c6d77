import type { Db } from "../db.ts";

/**
 * Term statistics for IDF weights, read from the FTS5 index itself (fts5vocab 'row': rows containing each
 * term). They span every deployment, exactly like FTS5's own bm25(), so the gate and the ranking agree.
 */
export function createTermStatsRepo(db: Db, opts: { cacheMs?: number; now?: () => number } = {}) {
  const cacheMs = opts.cacheMs ?? 5000;
  const now = opts.now ?? Date.now;
  const df = db.query<{ doc: number }, [string]>("SELECT doc FROM chunks_fts_vocab WHERE term = ?");
  const count = db.query<{ n: number }, []>("SELECT count(*) AS n FROM chunks");
  let total: { n: number; at: number } | null = null;
  return {
    /** Rows (chunks) containing each term; absent terms are 0. One indexed lookup per term. */
    documentFrequencies(terms: string[]): Map<string, number> {
      const out = new Map<string, number>();
      for (const t of new Set(terms)) out.set(t, df.get(t)?.doc ?? 0);
      return out;
    },
    /** Indexed chunks, cached briefly: it only scales the weights, and counting 100k rows per question adds up. */
    totalChunks(): number {
      const t = now();
      if (!total || t - total.at > cacheMs) total = { n: count.get()?.n ?? 0, at: t };
      return total.n;
    },
  };
}

export type TermStatsRepo = ReturnType<typeof createTermStatsRepo>;
