-- Languages (issue 19). A deployment's pinned languages ('' = detect from its documents, else comma-separated
-- ISO 639-1 codes, e.g. 'de,en') and the owner's own refusal text (NULL = docchat's, in the visitor's language);
-- the language each document and each chunk was analyzed in (detected at training, NULL = trained before).
ALTER TABLE deployments ADD COLUMN languages TEXT NOT NULL DEFAULT '';
ALTER TABLE deployments ADD COLUMN refusal_text TEXT;
ALTER TABLE documents ADD COLUMN lang TEXT;
ALTER TABLE chunks ADD COLUMN lang TEXT;
-- The keyword index holds analyzed terms (store/keyword-tables.ts). Each table records the analysis that built it;
-- tables from before (external content, unicode61) are 'unicode61' and are rebuilt into new ones. A rebuild in
-- progress keeps its table and the last chunk id written, so a killed one resumes; `stale` asks for a rebuild (the
-- owner pinned other languages).
ALTER TABLE keyword_tables ADD COLUMN analyzer TEXT NOT NULL DEFAULT 'unicode61';
ALTER TABLE keyword_tables ADD COLUMN stale INTEGER NOT NULL DEFAULT 0;
CREATE TABLE keyword_reindex (
  deployment_id TEXT PRIMARY KEY,
  n INTEGER NOT NULL UNIQUE,
  analyzer TEXT NOT NULL,
  last_id INTEGER NOT NULL
);
-- A large document's chunks wait staged with their analyzed terms until they are published into the index.
ALTER TABLE chunks ADD COLUMN staged_terms TEXT;
ALTER TABLE chunks ADD COLUMN staged_heading_terms TEXT;
