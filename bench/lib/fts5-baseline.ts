import { Database } from "bun:sqlite";
import { queryTerms, wordTokens } from "../../src/rag/terms.ts";

/** Plain BM25 in FTS5 over (id, text), queried with an OR of the question's content words. */
export function fts5Baseline(docs: { id: string; text: string }[], tokenize: string) {
  const db = new Database(":memory:");
  db.run(`CREATE VIRTUAL TABLE p USING fts5(doc_id UNINDEXED, body, tokenize = "${tokenize}")`);
  const put = db.prepare("INSERT INTO p (doc_id, body) VALUES (?, ?)");
  db.transaction(() => {
    for (const d of docs) put.run(d.id, d.text);
  })();
  const select = db.prepare<{ doc_id: string }, [string, number]>("SELECT doc_id FROM p WHERE p MATCH ? ORDER BY bm25(p) LIMIT ?");
  return {
    search(words: string[], limit: number): string[] {
      const m = [...new Set(words)].map((w) => `"${w.replaceAll('"', '""')}"`).join(" OR ");
      return m ? select.all(m, limit).map((r) => r.doc_id) : [];
    },
    close: () => db.close(),
  };
}

/** A question's content words as the baselines are queried with (the product's stop words, no stemming of its own). */
export const baselineWords = (q: string) => queryTerms(q).map((w) => wordTokens(w).join(""));
