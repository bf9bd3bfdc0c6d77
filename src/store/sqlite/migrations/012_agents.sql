-- Agents and automation (issue 21): a description agents read in the MCP server's instructions, and signed
-- webhooks delivered from a durable outbox. (An answer's citations are kept by 011_owner_insight.)
ALTER TABLE deployments ADD COLUMN description TEXT NOT NULL DEFAULT '';

-- One receiver of a deployment's events. `events` is a JSON array of event types; the secret is `whsec_…`
-- (Standard Webhooks), kept in clear because every delivery is signed with it.
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  deployment_id TEXT NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  secret TEXT NOT NULL,
  events TEXT NOT NULL DEFAULT '[]',
  enabled INTEGER NOT NULL DEFAULT 1,
  description TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX webhook_endpoints_deployment ON webhook_endpoints(deployment_id, created_at);

-- The outbox: one row per event per endpoint, the exact body fixed when queued, so every retry sends the same
-- bytes under the same webhook-id. Claimed like mail_outbox: 'sending' with next_attempt_at as the lease expiry.
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  deployment_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'delivered', 'dead')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_status INTEGER,
  last_error TEXT,
  last_attempt_at INTEGER,
  created_at INTEGER NOT NULL,
  delivered_at INTEGER,
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, id);
