-- Keyword (BM25) ranking per deployment: one FTS5 table per deployment, so ranking statistics (document
-- frequencies, corpus size, average length) and the gate's IDF come from that deployment's own documents only.
-- The tables are created on demand (store/keyword-tables.ts) as kw_<n>, external-content over `chunks`, with
-- an fts5vocab 'row' table kw_<n>_vocab beside each. The shared index is rebuilt per deployment at first open.
CREATE TABLE keyword_tables (
  n INTEGER PRIMARY KEY,
  deployment_id TEXT NOT NULL UNIQUE
);
DROP TABLE chunks_fts_vocab;
DROP TABLE chunks_fts;
