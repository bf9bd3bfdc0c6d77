-- Document endpoints with the deployment key. The key is public wherever the widget is embedded, so listing and
-- removing documents with it is off until the owner turns it on; pushing stays on (the interface defines it) but
-- the owner can switch it off or restrict it to a list of addresses.
ALTER TABLE deployments ADD COLUMN key_manages_documents INTEGER NOT NULL DEFAULT 0;
ALTER TABLE deployments ADD COLUMN push_enabled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE deployments ADD COLUMN push_ip_allow TEXT NOT NULL DEFAULT '[]';
-- Per-account storage quotas sum document sizes across the account's deployments.
CREATE INDEX documents_deployment_size ON documents(deployment_id, size);
-- Leads are listed newest first, a page at a time (id < cursor).
CREATE INDEX leads_deployment_id ON leads(deployment_id, id);
-- Owner sign-in attempts, kept in the database so the operator's CLI can clear them (`docchat account unlock`)
-- and a restart does not reset them. A row is written before the password is checked and removed when it was
-- right, so what remains are failures (and attempts still being checked).
CREATE TABLE owner_login_attempts (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL,
  ip TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX owner_login_attempts_email_ip ON owner_login_attempts(email, ip, at);
CREATE INDEX owner_login_attempts_ip ON owner_login_attempts(ip, at);
