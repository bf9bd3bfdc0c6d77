/**
 * How both engines split text into keyword terms: FTS5's unicode61 tokenizer with these options. SQLite's keyword
 * tables are created with it (sqlite/keyword-tables.ts); the PostgreSQL index runs the same tokenizer in memory
 * (postgres/fts5-tokenizer.ts), so its terms, and therefore its BM25 scores, are SQLite's. rag/terms.ts wordTokens
 * mirrors it for query words.
 */
export const KEYWORD_TOKENIZER = "unicode61 remove_diacritics 2 tokenchars '_'";
