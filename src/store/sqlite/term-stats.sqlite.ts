import type { TermStatsStore } from "../contract/chunk-index.contract.ts";
import type { Db } from "./db.ts";
import { findKeywordTable, keywordGeneration } from "./keyword-tables.ts";

/** document frequencies kept per deployment between changes to the keyword tables (bounded, then started afresh) */
const DF_CACHE = { terms: 50_000, deployments: 1_000 };

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
  const dfs = new Map<string, { generation: number; df: Map<string, number> }>();
  return {
    /**
     * One indexed lookup per term — which reads the term's whole doclist (fts5vocab counts its rows), ~1 ms for a
     * term in 10,000 chunks — so they are kept until the deployment's keyword table changes (keywordGeneration):
     * the common words of one question are the common words of the next. Measured in BENCHMARKS.md ("Keyword
     * retrieval latency at 100000 chunks").
     */
    async documentFrequencies(deploymentId, terms) {
      const out = new Map<string, number>();
      const generation = keywordGeneration(db);
      let cache = dfs.get(deploymentId);
      if (!cache || cache.generation !== generation || cache.df.size > DF_CACHE.terms) {
        if (dfs.size > DF_CACHE.deployments) dfs.clear();
        cache = { generation, df: new Map() };
        dfs.set(deploymentId, cache);
      }
      let lookup: ((t: string) => number) | null = null;
      for (const t of new Set(terms)) {
        let n = cache.df.get(t);
        if (n === undefined) {
          if (!lookup) {
            const kw = findKeywordTable(db, deploymentId);
            const q = kw ? db.query<{ doc: number }, [string]>(`SELECT doc FROM ${kw.vocab} WHERE term = ?`) : null;
            lookup = (term) => q?.get(term)?.doc ?? 0;
          }
          n = lookup(t);
          cache.df.set(t, n);
        }
        out.set(t, n);
      }
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
