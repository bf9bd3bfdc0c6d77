-- Owner console sessions. Only the SHA-256 of the session id is stored, so a copy of the database cannot be
-- replayed as a cookie. last_seen_at drives the idle timeout, expires_at the absolute one.
CREATE TABLE owner_sessions (
  id_hash TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX owner_sessions_account ON owner_sessions(account_id);

-- Reports: per-day counts of refused turns and served corrections read these.
CREATE INDEX chat_logs_deployment_refused ON chat_logs(deployment_id, refused, created_at);
