-- Accounts, deployments and their keys.
CREATE TABLE accounts (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash TEXT,
  tokens INTEGER NOT NULL DEFAULT 0 CHECK (tokens >= 0),
  disabled INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);

CREATE TABLE token_ledger (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  delta INTEGER NOT NULL,
  balance INTEGER NOT NULL,
  reason TEXT NOT NULL,
  chat_log_id INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX token_ledger_account ON token_ledger(account_id, created_at);

CREATE TABLE deployments (
  id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'docs' CHECK (kind IN ('docs', 'private_gpt')),
  published INTEGER NOT NULL DEFAULT 0,
  persona TEXT NOT NULL DEFAULT '',
  temperature REAL NOT NULL DEFAULT 0.2,
  starter_questions TEXT NOT NULL DEFAULT '[]',
  qa_pairs TEXT NOT NULL DEFAULT '[]',
  handoff_enabled INTEGER NOT NULL DEFAULT 0,
  ip_allow TEXT NOT NULL DEFAULT '[]',
  training_status TEXT NOT NULL DEFAULT 'none',
  trained_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX deployments_account ON deployments(account_id);

CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY,
  deployment_id TEXT NOT NULL UNIQUE REFERENCES deployments(id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL UNIQUE,
  display_prefix TEXT NOT NULL,
  disabled INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);

-- Conversations and the turns answered in them.
CREATE TABLE conversations (
  id TEXT PRIMARY KEY,
  deployment_id TEXT NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX conversations_deployment ON conversations(deployment_id);

CREATE TABLE chat_logs (
  id INTEGER PRIMARY KEY,
  deployment_id TEXT NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  conversation_id TEXT NOT NULL,
  completion_id TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  question TEXT NOT NULL,
  search_query TEXT NOT NULL,
  answer TEXT NOT NULL,
  sources TEXT NOT NULL DEFAULT '[]',
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  refused INTEGER NOT NULL DEFAULT 0,
  correction_id INTEGER,
  visitor_email TEXT,
  rating INTEGER CHECK (rating IN (0, 1)),
  rated_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX chat_logs_conversation ON chat_logs(conversation_id, id);
CREATE INDEX chat_logs_deployment ON chat_logs(deployment_id, created_at);

CREATE TABLE corrections (
  id INTEGER PRIMARY KEY,
  deployment_id TEXT NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  chat_log_id INTEGER NOT NULL REFERENCES chat_logs(id) ON DELETE CASCADE,
  question TEXT NOT NULL,
  question_norm TEXT NOT NULL,
  answer TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  served_count INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX corrections_lookup ON corrections(deployment_id, question_norm, active);

CREATE TABLE leads (
  id INTEGER PRIMARY KEY,
  deployment_id TEXT NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  conversation_id TEXT,
  chat_log_id INTEGER,
  email TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  message TEXT NOT NULL DEFAULT '',
  refused_question TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL
);
CREATE INDEX leads_deployment ON leads(deployment_id, created_at);

CREATE TABLE mail_outbox (
  id INTEGER PRIMARY KEY,
  lead_id INTEGER REFERENCES leads(id) ON DELETE SET NULL,
  message_id TEXT NOT NULL UNIQUE,
  to_addr TEXT NOT NULL,
  subject TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'dead')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  sent_at INTEGER
);
CREATE INDEX mail_outbox_due ON mail_outbox(status, next_attempt_at);
