import type { TermStatsStore } from "../contract/chunk-index.contract.ts";
import type { Db } from "./db.ts";
import { findKeywordTable } from "./keyword-tables.ts";

/**
 * Term statistics for the gate's IDF weights, read from the deployment's own keyword table (fts5vocab 'row':
 * chunks containing each term). Only that deployment's documents count, exactly like its bm25() ranking, so the
 * gate and the ranking agree and another tenant's uploads change neither.
 */
export function createSqliteTermStats(db: Db, opts: { cacheMs?: number; now?: () => number } = {}): TermStatsStore {
  const cacheMs = opts.cacheMs ?? 5000;
  const now = opts.now ?? Date.now;
  const count = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM chunks WHERE deployment_id = ?");
  const totals = new Map<string, { n: number; at: number }>();
  const langs = new Map<string, { l: string[]; at: number }>();
  const langQuery = db.query<{ lang: string }, [string]>(
    "SELECT lang FROM documents WHERE deployment_id = ? AND status = 'completed' AND lang IS NOT NULL GROUP BY lang ORDER BY SUM(chunk_count) DESC, lang",
  );
  return {
    /** One indexed lookup per term. */
    async documentFrequencies(deploymentId, terms) {
      const out = new Map<string, number>();
      const kw = findKeywordTable(db, deploymentId);
      const df = kw ? db.query<{ doc: number }, [string]>(`SELECT doc FROM ${kw.vocab} WHERE term = ?`) : null;
      for (const t of new Set(terms)) out.set(t, df?.get(t)?.doc ?? 0);
      return out;
    },
    /** The languages of the deployment's trained documents, the most chunks first; cached briefly like the total. */
    async languages(deploymentId) {
      const t = now();
      const hit = langs.get(deploymentId);
      if (hit && t - hit.at <= cacheMs) return hit.l;
      const l = langQuery.all(deploymentId).map((r) => r.lang);
      if (langs.size > 10_000) langs.clear();
      langs.set(deploymentId, { l, at: t });
      return l;
    },
    /** Cached briefly: it only scales the weights, and counting 100k rows per question adds up. */
    async totalChunks(deploymentId) {
      const t = now();
      const hit = totals.get(deploymentId);
      if (hit && t - hit.at <= cacheMs) return hit.n;
      const n = count.get(deploymentId)?.n ?? 0;
      if (totals.size > 10_000) totals.clear();
      totals.set(deploymentId, { n, at: t });
      return n;
    },
  };
}
