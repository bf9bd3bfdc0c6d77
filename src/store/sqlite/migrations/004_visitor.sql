-- Visitor features: leads with owner mail, ratings and corrections.

-- Which transport took an outbox row ('smtp', or 'log' when mail is off), so the owner is never told "sent" wrongly.
ALTER TABLE mail_outbox ADD COLUMN sent_via TEXT;
CREATE INDEX mail_outbox_lead ON mail_outbox(lead_id);

-- One correction per rated chat log (set = create or replace), and at most one active correction per
-- normalised question of a deployment (a newer one supersedes the older).
CREATE UNIQUE INDEX corrections_chat_log ON corrections(chat_log_id);
CREATE UNIQUE INDEX corrections_active_question ON corrections(deployment_id, question_norm) WHERE active = 1;

-- The owner's corrections screen lists answers rated 0.
CREATE INDEX chat_logs_rating ON chat_logs(deployment_id, rating);

-- A repeated handoff for the same refusal and email returns the existing lead instead of mailing twice.
CREATE INDEX leads_refusal ON leads(deployment_id, chat_log_id, email);
