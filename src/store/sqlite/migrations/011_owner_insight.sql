-- Issue 22: what owners see of what visitors get, and how long they keep it.

-- Where each answer stood: the cited passages (document, page or row, a short quote) as JSON, and whether it was
-- answered only weakly (its best passage barely over the refusal bar) — content gaps count those with refusals.
ALTER TABLE chat_logs ADD COLUMN citations TEXT NOT NULL DEFAULT '[]';
ALTER TABLE chat_logs ADD COLUMN weak INTEGER NOT NULL DEFAULT 0;
-- A turn kept past the retention period (a correction is anchored on it) is counted in report_rollups already.
ALTER TABLE chat_logs ADD COLUMN rolled_up INTEGER NOT NULL DEFAULT 0;
-- Erasure by email and the purge job's "older than" both look turns up without a scan.
CREATE INDEX chat_logs_visitor_email ON chat_logs(visitor_email) WHERE visitor_email IS NOT NULL;
CREATE INDEX chat_logs_created ON chat_logs(created_at);
CREATE INDEX leads_conversation ON leads(conversation_id) WHERE conversation_id IS NOT NULL;
CREATE INDEX leads_email ON leads(email COLLATE NOCASE);

-- A deployment's privacy and citation policy, apart from its settings row: how long chat logs are kept (NULL:
-- until erased), whether transcripts are kept at all past the conversation, and what the widget may open.
CREATE TABLE deployment_policies (
  deployment_id TEXT PRIMARY KEY REFERENCES deployments(id) ON DELETE CASCADE,
  retention_days INTEGER CHECK (retention_days IS NULL OR retention_days BETWEEN 1 AND 3650),
  transcripts INTEGER NOT NULL DEFAULT 1,
  widget_citations TEXT NOT NULL DEFAULT 'off' CHECK (widget_citations IN ('off', 'page', 'document')),
  updated_at INTEGER NOT NULL,
  -- signs visitors' citation links (HMAC); made on first use, the same for every node
  link_secret TEXT
) WITHOUT ROWID;

-- Report counts of purged chat logs, per deployment and quarter hour (UTC), so reports outlive the transcripts.
CREATE TABLE report_rollups (
  deployment_id TEXT NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  bucket INTEGER NOT NULL,
  questions INTEGER NOT NULL DEFAULT 0,
  answers INTEGER NOT NULL DEFAULT 0,
  refusals INTEGER NOT NULL DEFAULT 0,
  tokens INTEGER NOT NULL DEFAULT 0,
  rated_up INTEGER NOT NULL DEFAULT 0,
  rated_down INTEGER NOT NULL DEFAULT 0,
  corrections_served INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (deployment_id, bucket)
) WITHOUT ROWID;

-- Erasures done (who asked by what, what was removed): the identifier itself is kept only as a SHA-256.
CREATE TABLE erasures (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  subject_kind TEXT NOT NULL CHECK (subject_kind IN ('conversation', 'email')),
  subject_hash TEXT NOT NULL,
  deployments TEXT NOT NULL DEFAULT '[]',
  chat_logs INTEGER NOT NULL DEFAULT 0,
  leads INTEGER NOT NULL DEFAULT 0,
  mails INTEGER NOT NULL DEFAULT 0,
  conversations INTEGER NOT NULL DEFAULT 0,
  corrections_kept INTEGER NOT NULL DEFAULT 0,
  via TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX erasures_account ON erasures(account_id, id);

-- The owner's test questions: an expected answer (any of the strings) or "should refuse".
CREATE TABLE test_questions (
  id INTEGER PRIMARY KEY,
  deployment_id TEXT NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  question TEXT NOT NULL,
  history TEXT NOT NULL DEFAULT '[]',
  kind TEXT NOT NULL CHECK (kind IN ('answer', 'refuse')),
  expect_any TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX test_questions_deployment ON test_questions(deployment_id, id);

-- A run of a deployment's test questions. run_key makes "once per training" hold across nodes: the run after a
-- training is keyed by the training's time, so a second node's insert of the same run is refused.
CREATE TABLE test_runs (
  id INTEGER PRIMARY KEY,
  deployment_id TEXT NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  run_key TEXT NOT NULL UNIQUE,
  trigger TEXT NOT NULL CHECK (trigger IN ('training', 'manual')),
  status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
  total INTEGER NOT NULL DEFAULT 0,
  passed INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  started_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX test_runs_deployment ON test_runs(deployment_id, id);

CREATE TABLE test_results (
  run_id INTEGER NOT NULL REFERENCES test_runs(id) ON DELETE CASCADE,
  test_question_id INTEGER NOT NULL,
  question TEXT NOT NULL,
  kind TEXT NOT NULL,
  verdict TEXT NOT NULL,
  passed INTEGER NOT NULL,
  answer TEXT NOT NULL,
  search_query TEXT NOT NULL,
  sources TEXT NOT NULL DEFAULT '[]',
  citations TEXT NOT NULL DEFAULT '[]',
  PRIMARY KEY (run_id, test_question_id)
) WITHOUT ROWID;
