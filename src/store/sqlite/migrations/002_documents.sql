-- Documents, their raw bytes (kept so training resumes after a crash) and the chunk index.
CREATE TABLE documents (
  id TEXT PRIMARY KEY,
  deployment_id TEXT NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'stored' CHECK (status IN ('stored', 'queued', 'processing', 'completed', 'failed')),
  error_code TEXT,
  error_message TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  chunk_count INTEGER NOT NULL DEFAULT 0,
  pages INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX documents_deployment ON documents(deployment_id, name);
CREATE INDEX documents_status ON documents(status);

CREATE TABLE document_blobs (
  document_id TEXT PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  bytes BLOB NOT NULL
);

CREATE TABLE chunks (
  id INTEGER PRIMARY KEY,
  deployment_id TEXT NOT NULL,
  document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL,
  source TEXT NOT NULL,
  text TEXT NOT NULL,
  heading_path TEXT NOT NULL DEFAULT '',
  page_start INTEGER,
  page_end INTEGER,
  row_start INTEGER,
  row_end INTEGER,
  token_count INTEGER NOT NULL,
  text_hash TEXT NOT NULL
);
CREATE INDEX chunks_document ON chunks(document_id, ord);
CREATE INDEX chunks_deployment ON chunks(deployment_id);

-- BM25 index; rowid = chunks.id. Written explicitly in the chunk's transaction (no triggers).
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  text,
  heading,
  tokenize = "unicode61 remove_diacritics 2 tokenchars '_'"
);

-- Embedding cache: identical chunk text is embedded once per embedder.
CREATE TABLE embedding_cache (
  embedder_id TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (embedder_id, text_hash)
) WITHOUT ROWID;

-- Which embedder built the vector index (model id and dimension); a mismatch refuses start-up.
CREATE TABLE index_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
