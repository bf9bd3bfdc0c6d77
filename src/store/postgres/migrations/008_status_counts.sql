-- A deployment's documents counted by status (its training status, refreshed at every claim and batch of a bulk
-- load, and the console's counts) from the index alone, as SQLite's 015_status_counts does.
CREATE INDEX documents_deployment_status ON documents (deployment_id, status);
