-- Rate limits shared by every node (issue 12): exact "N per rolling window" per identity, as a sliding log of
-- the requests counted. rate_limit_hit() takes a transaction-scoped advisory lock on the identity, drops the
-- identity's hits that left the window, counts the rest and records one more unless the limit is reached: one
-- round trip, and two nodes can never both see room for the last request. Time is the database server's clock,
-- so nodes whose clocks drift apart still share one window.
-- UNLOGGED: these rows are worth nothing after a database crash (the limit restarts empty, as it does when a
-- single-node server restarts) and are not replicated; skipping the WAL makes each hit cheaper.
CREATE UNLOGGED TABLE rate_limit_hits (
  identity text NOT NULL,
  at bigint NOT NULL
);
CREATE INDEX rate_limit_hits_identity ON rate_limit_hits (identity, at);

-- allowed, requests in the window before this one, the oldest of them (ms), the server's now (ms)
CREATE FUNCTION rate_limit_hit(p_identity text, p_limit integer, p_window_ms bigint, p_count boolean)
RETURNS TABLE (allowed boolean, in_window integer, oldest bigint, now_ms bigint)
LANGUAGE plpgsql AS $$
DECLARE
  t bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
  n integer;
  first bigint;
BEGIN
  IF NOT p_count THEN
    SELECT count(*)::int, min(h.at) INTO n, first FROM rate_limit_hits h WHERE h.identity = p_identity AND h.at > t - p_window_ms;
    RETURN QUERY SELECT n < p_limit, n, first, t;
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(7201513, hashtext(p_identity));
  -- the lock may have been waited for: read the clock again so hits stay in arrival order
  t := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
  DELETE FROM rate_limit_hits h WHERE h.identity = p_identity AND h.at <= t - p_window_ms;
  SELECT count(*)::int, min(h.at) INTO n, first FROM rate_limit_hits h WHERE h.identity = p_identity;
  IF n < p_limit THEN
    INSERT INTO rate_limit_hits (identity, at) VALUES (p_identity, t);
  END IF;
  RETURN QUERY SELECT n < p_limit, n, first, t;
END;
$$;
