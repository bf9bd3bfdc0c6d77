-- Languages (issue 19), as SQLite's migration 011: pinned deployment languages ('' = detect), the owner's own
-- refusal text, and the language each document and chunk was analyzed in.
ALTER TABLE deployments ADD COLUMN languages text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE deployments ADD COLUMN refusal_text text COLLATE "C";
ALTER TABLE documents ADD COLUMN lang text COLLATE "C";
ALTER TABLE chunks ADD COLUMN lang text COLLATE "C";
