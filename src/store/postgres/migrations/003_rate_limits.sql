-- Rate limits shared by every node (issue 12): exact "N per rolling window" per identity, as a sliding log of
-- the requests counted. rate_limit_hit() takes a transaction-scoped advisory lock on the identity, drops the
-- identity's hits that left the window, and records one more unless the limit is reached: one round trip, and
-- two nodes can never both see room for the last request. Time is the database server's clock, so nodes whose
-- clocks drift apart still share one window.
-- The count in the window is kept in rate_limit_counts beside the log, adjusted by exactly the rows each call
-- removes and adds, so a hit costs the same with a limit of 120 as with one of 12 million (counting the log
-- instead made each hit read the whole window). Every removal of an identity's hits holds that identity's lock,
-- which keeps the two tables in step.
-- UNLOGGED: these rows are worth nothing after a database crash (the limit restarts empty, as it does when a
-- single-node server restarts) and are not replicated; skipping the WAL makes each hit cheaper.
CREATE UNLOGGED TABLE rate_limit_hits (
  identity text NOT NULL,
  at bigint NOT NULL
);
CREATE INDEX rate_limit_hits_identity ON rate_limit_hits (identity, at);
CREATE UNLOGGED TABLE rate_limit_counts (
  identity text PRIMARY KEY,
  n integer NOT NULL,
  last_at bigint NOT NULL
);
CREATE INDEX rate_limit_counts_last ON rate_limit_counts (last_at);

-- allowed, requests in the window before this one, the oldest of them (ms), the server's now (ms)
CREATE FUNCTION rate_limit_hit(p_identity text, p_limit integer, p_window_ms bigint, p_count boolean)
RETURNS TABLE (allowed boolean, in_window integer, oldest bigint, now_ms bigint)
LANGUAGE plpgsql AS $$
DECLARE
  t bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
  v_n integer;
  gone integer;
  first bigint;
BEGIN
  IF NOT p_count THEN
    SELECT c.n INTO v_n FROM rate_limit_counts c WHERE c.identity = p_identity;
    SELECT count(*)::int INTO gone FROM rate_limit_hits h WHERE h.identity = p_identity AND h.at <= t - p_window_ms;
    v_n := coalesce(v_n, 0) - gone;
    RETURN QUERY SELECT v_n < p_limit, v_n, NULL::bigint, t;
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(7201513, hashtext(p_identity));
  -- the lock may have been waited for: read the clock again so hits stay in arrival order
  t := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
  WITH d AS (DELETE FROM rate_limit_hits h WHERE h.identity = p_identity AND h.at <= t - p_window_ms RETURNING 1)
  SELECT count(*)::int INTO gone FROM d;
  SELECT c.n INTO v_n FROM rate_limit_counts c WHERE c.identity = p_identity;
  v_n := coalesce(v_n, 0) - gone;
  IF v_n < p_limit THEN
    INSERT INTO rate_limit_hits (identity, at) VALUES (p_identity, t);
    INSERT INTO rate_limit_counts AS c (identity, n, last_at) VALUES (p_identity, v_n + 1, t)
      ON CONFLICT (identity) DO UPDATE SET n = excluded.n, last_at = excluded.last_at;
    RETURN QUERY SELECT true, v_n, NULL::bigint, t;
    RETURN;
  END IF;
  SELECT h.at INTO first FROM rate_limit_hits h WHERE h.identity = p_identity ORDER BY h.at LIMIT 1;
  RETURN QUERY SELECT false, v_n, first, t;
END;
$$;

-- Forgets identities whose last counted hit left the window, each under its own lock (a hit arriving meanwhile
-- either waits for it or makes the identity active again). Returns how many were forgotten.
CREATE FUNCTION rate_limit_sweep(p_window_ms bigint, p_max integer)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  t bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
  id text;
  done integer := 0;
BEGIN
  FOR id IN SELECT c.identity FROM rate_limit_counts c WHERE c.last_at <= t - p_window_ms ORDER BY c.last_at LIMIT p_max LOOP
    PERFORM pg_advisory_xact_lock(7201513, hashtext(id));
    DELETE FROM rate_limit_counts c WHERE c.identity = id AND c.last_at <= t - p_window_ms;
    IF FOUND THEN
      DELETE FROM rate_limit_hits h WHERE h.identity = id;
      done := done + 1;
    END IF;
  END LOOP;
  RETURN done;
END;
$$;
