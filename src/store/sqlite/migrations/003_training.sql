-- Parsed structure is stored at upload (a bad file is refused before anything is kept), so training only
-- chunks, embeds and indexes. replace_on_train: documents of the same name are swapped out atomically when
-- this one's index is written.
ALTER TABLE document_blobs ADD COLUMN parsed TEXT;
ALTER TABLE documents ADD COLUMN replace_on_train INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN queued_at INTEGER;
