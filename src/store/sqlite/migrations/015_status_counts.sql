-- A deployment's documents counted by status (its training status, refreshed at every claim and batch of a bulk
-- load, and the console's counts) from the index alone: without it each count read every document row of the
-- deployment, 4 ms at 3,000 documents and growing with them.
CREATE INDEX documents_deployment_status ON documents(deployment_id, status);
