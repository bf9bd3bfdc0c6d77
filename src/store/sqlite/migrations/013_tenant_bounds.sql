-- Documents remember who added them: the owner (console, CLI) or the deployment key (POST /api/v1/documents).
-- The key is public wherever the widget is embedded, so a key push may replace or remove only documents pushed
-- with a key, and key pushes have their own storage share per deployment (push_max_*; NULL: the service default,
-- DOCCHAT_PUSH_MAX_DOCUMENTS / DOCCHAT_PUSH_MAX_BYTES) that never counts against the owner's quota. Documents
-- stored before this migration are taken as the owner's: the key can no longer replace them.
ALTER TABLE documents ADD COLUMN origin TEXT NOT NULL DEFAULT 'owner' CHECK (origin IN ('owner', 'key'));
CREATE INDEX documents_deployment_origin ON documents(deployment_id, origin, size);
ALTER TABLE deployments ADD COLUMN push_max_documents INTEGER;
ALTER TABLE deployments ADD COLUMN push_max_bytes INTEGER;
-- Tokens held for answers being written: an answer reserves what it may cost before the model runs and settles
-- when it is recorded, so concurrent answers never spend more than the balance. A reservation a crash left
-- behind stops counting at expires_at.
CREATE TABLE token_reservations (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  amount INTEGER NOT NULL CHECK (amount > 0),
  expires_at INTEGER NOT NULL
);
CREATE INDEX token_reservations_account ON token_reservations(account_id, expires_at);
-- Sign-in throttling per account across addresses: failures of one email from every address are counted, except
-- from addresses the account signed in from before (rows with ok = 1, kept for 30 days), so strangers guessing
-- from many addresses are stopped without locking the owner out.
ALTER TABLE owner_login_attempts ADD COLUMN ok INTEGER NOT NULL DEFAULT 0;
CREATE INDEX owner_login_attempts_email_at ON owner_login_attempts(email, at);
