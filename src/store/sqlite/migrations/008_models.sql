-- A deployment's own refusal threshold (0..1); NULL uses the service default for the active retrieval mode.
ALTER TABLE deployments ADD COLUMN refusal_threshold REAL CHECK (refusal_threshold IS NULL OR (refusal_threshold >= 0 AND refusal_threshold <= 1));
