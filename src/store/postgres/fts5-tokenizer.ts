import { Database } from "bun:sqlite";
import { KEYWORD_TOKENIZER } from "../keyword-tokenizer.ts";

export interface TokenCounts {
  /** term → occurrences in the text column and in the heading column */
  tf: Map<string, { t: number; h: number }>;
  /** tokens in both columns: FTS5's row size for bm25() */
  length: number;
}

/**
 * Splits text into terms with SQLite's own FTS5 unicode61 tokenizer (the exact options of the per-deployment
 * keyword tables, store/keyword-tokenizer.ts), through a private in-memory FTS5 table and its fts5vocab 'instance'
 * view. The PostgreSQL keyword index uses it so its terms — and therefore its BM25 scores — are FTS5's in every
 * script, not an approximation (rag/terms.ts wordTokens differs on ligatures, super/subscripts, µ, non-Latin
 * marks, Hangul). Synchronous, so calls never interleave.
 */
export function createFts5Tokenizer() {
  const db = new Database(":memory:");
  db.run(`CREATE VIRTUAL TABLE tok USING fts5(text, heading, tokenize = "${KEYWORD_TOKENIZER}")`);
  db.run("CREATE VIRTUAL TABLE tok_v USING fts5vocab(tok, 'instance')");
  const insert = db.query<unknown, [number, string, string]>("INSERT INTO tok (rowid, text, heading) VALUES (?, ?, ?)");
  const read = db.query<{ doc: number; col: string; term: string; n: number }, []>(
    "SELECT doc, col, term, count(*) AS n FROM tok_v GROUP BY doc, col, term",
  );
  const count = (rows: { text: string; heading: string }[]): TokenCounts[] => {
    const out: TokenCounts[] = rows.map(() => ({ tf: new Map(), length: 0 }));
    db.transaction(() => {
      for (const [i, r] of rows.entries()) insert.run(i + 1, r.text, r.heading);
      for (const r of read.all()) {
        const c = out[r.doc - 1] as TokenCounts;
        const e = c.tf.get(r.term) ?? { t: 0, h: 0 };
        if (r.col === "text") e.t += r.n;
        else e.h += r.n;
        c.tf.set(r.term, e);
        c.length += r.n;
      }
      db.run("DELETE FROM tok");
    })();
    return out;
  };
  return {
    /** Term counts per (text, heading) row, as FTS5 would index them. */
    count,
    /** The distinct terms of a text, as FTS5 would search them. */
    terms(text: string): string[] {
      return [...(count([{ text, heading: "" }])[0]?.tf.keys() ?? [])];
    },
  };
}

export type Fts5Tokenizer = ReturnType<typeof createFts5Tokenizer>;
