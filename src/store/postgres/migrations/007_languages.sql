-- Languages (issue 19), as SQLite's migration 013: pinned deployment languages ('' = detect), the owner's own
-- refusal text, and the language each document and chunk was analyzed in.
ALTER TABLE deployments ADD COLUMN languages text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE deployments ADD COLUMN refusal_text text COLLATE "C";
ALTER TABLE documents ADD COLUMN lang text COLLATE "C";
ALTER TABLE chunks ADD COLUMN lang text COLLATE "C";
-- The keyword postings hold analyzed terms (keyword-postings.pg.ts). kw_stats records the analysis that built a
-- deployment's index ('unicode61': FTS5's word splitting, before the analyzer) and `stale` asks for a rebuild. A
-- rebuild writes under the key '~kw:<deployment>' (terms, statistics, each chunk's new length in kw_length_next),
-- with its progress in kw_reindex, and replaces the live rows in one transaction at the end.
ALTER TABLE kw_stats ADD COLUMN analyzer text COLLATE "C" NOT NULL DEFAULT 'unicode61';
ALTER TABLE kw_stats ADD COLUMN stale integer NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN kw_length_next integer;
ALTER TABLE chunks ADD COLUMN staged_terms text COLLATE "C";
ALTER TABLE chunks ADD COLUMN staged_heading_terms text COLLATE "C";
CREATE TABLE kw_reindex (
  deployment_id text COLLATE "C" PRIMARY KEY,
  analyzer text COLLATE "C" NOT NULL,
  last_id bigint NOT NULL
);
