import type { SQL } from "bun";
import { LENGTH_PAD } from "../contract/chunk-index.contract.ts";
import type { Raw } from "./repos/values.ts";

const num = (v: unknown): number => Number(v);

/**
 * The PostgreSQL keyword index's postings (kw_terms, kw_postings, kw_stats; migrations/001_retrieval.sql), counted
 * from the analyzed terms the caller gives (rag/analyzer: space-separated, what FTS5's ascii tokenizer splits the
 * SQLite index into), so both engines hold the same terms with the same frequencies and lengths.
 */

/** PostgreSQL's btree refuses index entries over ~2.7 kB; no real word is this long, and both sides truncate alike. */
export const MAX_TERM_CHARS = 256;
export const termOf = (token: string): string => (token.length > MAX_TERM_CHARS ? token.slice(0, MAX_TERM_CHARS) : token);

export interface TokenCounts {
  /** term → occurrences in the text column and in the heading column */
  tf: Map<string, { t: number; h: number }>;
  /** tokens in both columns: FTS5's row size for bm25() */
  length: number;
}

const split = (s: string) => s.split(" ").filter((t) => t !== "");

/** Term counts of analyzed rows (terms cut to MAX_TERM_CHARS: two cut alike add up). */
export function countTerms(rows: { terms: string; heading: string }[]): TokenCounts[] {
  return rows.map((r) => {
    const tf = new Map<string, { t: number; h: number }>();
    const text = split(r.terms);
    const heading = split(r.heading);
    for (const t of text) {
      if (t === LENGTH_PAD) continue; // counted in the length only, as FTS5 counts it (it is never searched)
      const e = tf.get(termOf(t)) ?? { t: 0, h: 0 };
      e.t++;
      tf.set(termOf(t), e);
    }
    for (const t of heading) {
      const e = tf.get(termOf(t)) ?? { t: 0, h: 0 };
      e.h++;
      tf.set(termOf(t), e);
    }
    return { tf, length: text.length + heading.length };
  });
}

/** Serialises writers of one deployment's keyword statistics (df, N, total tokens): no lost update, no deadlock. */
export const lockDeployment = (tx: SQL, deploymentId: string) => tx`SELECT pg_advisory_xact_lock(hashtext(${`kw:${deploymentId}`}))`;

/** Where a deployment's keyword index is rebuilt (keyword-reindex.pg.ts) until it replaces the live one. */
export const rebuildKey = (deploymentId: string) => `~kw:${deploymentId}`;

/**
 * Postings, document frequencies and the totals of `key` (a deployment, or its rebuild) for chunks `ids`. A new
 * statistics row records the analysis that built it: `analyzer`, else index_meta's keyword_analyzer.
 */
export async function addPostings(sql: SQL, tx: SQL, key: string, ids: number[], counted: TokenCounts[], analyzer?: string): Promise<void> {
  // document frequencies: chunks of this batch containing each term
  const df = new Map<string, number>();
  for (const c of counted) for (const t of c.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const terms = [...df.keys()].sort();
  if (terms.length > 0) {
    const termIds = new Map(
      (
        (await tx`INSERT INTO kw_terms (deployment_id, term, df)
          SELECT ${key}, t, d FROM unnest(${sql.array(terms, "TEXT")}::text[], ${sql.array(
            terms.map((t) => df.get(t) as number),
            "INT4",
          )}::int[]) AS u(t, d)
          ON CONFLICT (deployment_id, term) DO UPDATE SET df = kw_terms.df + excluded.df
          RETURNING id, term`) as Raw[]
      ).map((r) => [r.term as string, num(r.id)]),
    );
    const pTerm: number[] = [];
    const pChunk: number[] = [];
    const pText: number[] = [];
    const pHead: number[] = [];
    const pLen: number[] = [];
    for (const [i, c] of counted.entries()) {
      for (const [t, f] of c.tf) {
        pTerm.push(termIds.get(t) as number);
        pChunk.push(ids[i] as number);
        pText.push(f.t);
        pHead.push(f.h);
        pLen.push(c.length);
      }
    }
    await tx`INSERT INTO kw_postings (term_id, chunk_id, tf_text, tf_heading, len)
      SELECT * FROM unnest(${sql.array(pTerm, "INT8")}::bigint[], ${sql.array(pChunk, "INT8")}::bigint[], ${sql.array(pText, "INT4")}::int[], ${sql.array(pHead, "INT4")}::int[], ${sql.array(pLen, "INT4")}::int[])`;
  }
  const total = counted.reduce((s, c) => s + c.length, 0);
  await tx`INSERT INTO kw_stats (deployment_id, chunks, tokens, analyzer)
    VALUES (${key}, ${ids.length}, ${total}, coalesce(${analyzer ?? null}::text, (SELECT value FROM index_meta WHERE key = 'keyword_analyzer'), 'analyzed'))
    ON CONFLICT (deployment_id) DO UPDATE SET chunks = kw_stats.chunks + excluded.chunks, tokens = kw_stats.tokens + excluded.tokens`;
}
