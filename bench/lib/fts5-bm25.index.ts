/**
 * Keyword retrieval as the product does it: SQLite FTS5 with bm25() ranking, tokenizer
 * `unicode61 remove_diacritics 2`, queried with an OR of the claim's non-stopword terms.
 * In-memory database: the bench measures ranking quality, not storage.
 */
import { Database } from "bun:sqlite";
import { queryTerms } from "./stopwords.ts";

export interface KeywordIndex {
  search(query: string, limit: number): string[];
  close(): void;
}

export function createFts5Bm25Index(docs: { id: string; text: string }[]): KeywordIndex {
  const db = new Database(":memory:");
  db.run("CREATE VIRTUAL TABLE passages USING fts5(doc_id UNINDEXED, body, tokenize = 'unicode61 remove_diacritics 2')");
  const insert = db.prepare("INSERT INTO passages (doc_id, body) VALUES (?, ?)");
  db.transaction(() => {
    for (const d of docs) insert.run(d.id, d.text);
  })();
  // bm25() is lower-is-better in FTS5.
  const select = db.prepare<{ doc_id: string }, [string, number]>(
    "SELECT doc_id FROM passages WHERE passages MATCH ? ORDER BY bm25(passages) LIMIT ?",
  );
  return {
    search(query, limit) {
      const terms = queryTerms(query);
      if (terms.length === 0) return [];
      // Quoting each term keeps FTS5 query syntax (AND, NEAR, -, *) in user text from being interpreted.
      const match = terms.map((t) => `"${t}"`).join(" OR ");
      return select.all(match, limit).map((r) => r.doc_id);
    },
    close: () => db.close(),
  };
}
