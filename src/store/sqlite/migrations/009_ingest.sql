-- Ingest at scale. A document's prepared chunks (made by the parse pool) and its raw bytes are stored in parts of
-- bounded size, each written in its own short transaction, so storing a 25 MB upload never holds the event loop or
-- the write lock for long; training reads them back part by part. Parts are written before the document row, so
-- parts without a document row are leftovers of an interrupted upload (swept after a day).
CREATE TABLE document_parts (
  document_id TEXT NOT NULL,
  part TEXT NOT NULL CHECK (part IN ('bytes', 'chunks')),
  seq INTEGER NOT NULL,
  data BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (document_id, part, seq)
) WITHOUT ROWID;

-- OCR: pages read from images and their mean confidence (0..100); notes: JSON list of pages to report
-- (low OCR confidence, no text found, left unread). progress: units done of total while training.
ALTER TABLE documents ADD COLUMN ocr_pages INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN ocr_confidence REAL;
ALTER TABLE documents ADD COLUMN notes TEXT;
ALTER TABLE documents ADD COLUMN progress_done INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN progress_total INTEGER NOT NULL DEFAULT 0;

-- The training queue is claimed in batches in queue order; without this, every claim sorted all queued rows.
CREATE INDEX documents_queue ON documents(status, queued_at, id);
