-- Document frequencies straight from the FTS5 index, for the grounding gate's IDF weights (no extra bookkeeping).
CREATE VIRTUAL TABLE chunks_fts_vocab USING fts5vocab(chunks_fts, 'row');

-- Style B threads: a conversation's turns in order, always looked up together with its deployment.
CREATE INDEX chat_logs_deployment_conversation ON chat_logs(deployment_id, conversation_id, id);
