-- Languages (issue 19). A deployment's pinned languages ('' = detect from its documents, else comma-separated
-- ISO 639-1 codes, e.g. 'de,en') and the owner's own refusal text (NULL = docchat's, in the visitor's language);
-- the language each document and each chunk was analyzed in (detected at training, NULL = trained before).
ALTER TABLE deployments ADD COLUMN languages TEXT NOT NULL DEFAULT '';
ALTER TABLE deployments ADD COLUMN refusal_text TEXT;
ALTER TABLE documents ADD COLUMN lang TEXT;
ALTER TABLE chunks ADD COLUMN lang TEXT;
