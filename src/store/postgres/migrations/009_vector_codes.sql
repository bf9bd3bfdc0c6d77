-- Vectors searched from binary codes each node holds in memory (vector-codes.pg.ts), as the embedded SQLite does.
-- chunk_codes: each vector's 2,048-bit code (shared/vector-codes.ts), written with it. A table of its own, narrow
-- (a node reads a deployment's codes in one scan) and apart from the vectors' HNSW index (updating a vector row
-- re-inserts it into the graph). Vectors written before this migration have none until a node computes them.
-- vector_generations: per deployment, a number every statement that changes its vectors raises (the row lock
-- orders the writers of one deployment as they commit), and `floor`: changes at or below it are no longer kept.
-- The row '*' counts recreations of the whole vector table (a reindex, a new dimension): every node reads afresh.
-- vector_changes: which chunks each generation added or removed, so a node brings its copy up to date with them.
CREATE TABLE chunk_codes (
  chunk_id bigint PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
  deployment_id text COLLATE "C" NOT NULL,
  code bytea NOT NULL
);
CREATE INDEX chunk_codes_deployment ON chunk_codes (deployment_id);
CREATE TABLE vector_generations (
  deployment_id text COLLATE "C" PRIMARY KEY,
  gen bigint NOT NULL,
  floor bigint NOT NULL DEFAULT 0
);
CREATE TABLE vector_changes (
  deployment_id text COLLATE "C" NOT NULL,
  gen bigint NOT NULL,
  chunk_id bigint NOT NULL,
  PRIMARY KEY (deployment_id, gen, chunk_id)
);

-- Notes that `chunks` (of `deployments`, one each) changed: one generation per deployment touched, its chunks noted,
-- and only the last 64 generations' changes kept.
CREATE FUNCTION note_vector_chunks(deployments text[], chunks bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN
    INSERT INTO vector_generations AS v (deployment_id, gen)
    SELECT DISTINCT d, 1 FROM unnest(deployments) AS d ORDER BY 1
    ON CONFLICT (deployment_id) DO UPDATE SET gen = v.gen + 1
    RETURNING v.deployment_id, v.gen
  LOOP
    INSERT INTO vector_changes (deployment_id, gen, chunk_id)
      SELECT r.deployment_id, r.gen, u.c FROM unnest(deployments, chunks) AS u(d, c) WHERE u.d = r.deployment_id
      ON CONFLICT DO NOTHING;
    IF r.gen % 64 = 0 THEN
      DELETE FROM vector_changes WHERE deployment_id = r.deployment_id AND gen <= r.gen - 64;
      UPDATE vector_generations SET floor = r.gen - 64 WHERE deployment_id = r.deployment_id;
    END IF;
  END LOOP;
END
$$;

-- Fired once per statement on chunk_vectors, with the rows it changed. An UPDATE notes the rows whose vector or
-- deployment changed (a vector moved between deployments is removed from one and added to the other).
CREATE FUNCTION note_vector_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d text[];
  c bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(deployment_id), array_agg(chunk_id) INTO d, c FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(deployment_id), array_agg(chunk_id) INTO d, c FROM old_rows;
  ELSE
    SELECT array_agg(x.deployment_id), array_agg(x.chunk_id) INTO d, c FROM (
      SELECT o.deployment_id, o.chunk_id FROM old_rows o LEFT JOIN new_rows n ON n.chunk_id = o.chunk_id
        WHERE n.chunk_id IS NULL OR n.deployment_id <> o.deployment_id OR n.embedding IS DISTINCT FROM o.embedding
      UNION
      SELECT n.deployment_id, n.chunk_id FROM new_rows n LEFT JOIN old_rows o ON o.chunk_id = n.chunk_id
        WHERE o.chunk_id IS NULL OR n.deployment_id <> o.deployment_id OR n.embedding IS DISTINCT FROM o.embedding) x;
  END IF;
  IF c IS NOT NULL THEN
    PERFORM note_vector_chunks(d, c);
  END IF;
  RETURN NULL;
END
$$;

-- The triggers on the vector table (created with it: chunk-index.pg.ts createVectorTable).
CREATE FUNCTION watch_vector_changes() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DROP TRIGGER IF EXISTS chunk_vectors_inserted ON chunk_vectors;
  DROP TRIGGER IF EXISTS chunk_vectors_deleted ON chunk_vectors;
  DROP TRIGGER IF EXISTS chunk_vectors_updated ON chunk_vectors;
  CREATE TRIGGER chunk_vectors_inserted AFTER INSERT ON chunk_vectors
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_vector_changes();
  CREATE TRIGGER chunk_vectors_deleted AFTER DELETE ON chunk_vectors
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_vector_changes();
  CREATE TRIGGER chunk_vectors_updated AFTER UPDATE ON chunk_vectors
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_vector_changes();
END
$$;

DO $$
BEGIN
  IF to_regclass('chunk_vectors') IS NOT NULL THEN
    PERFORM watch_vector_changes();
  END IF;
END
$$;
