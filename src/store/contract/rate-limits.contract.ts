/** Exact "N per rolling minute" per identity. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterSeconds: number;
}

/**
 * Requests per rolling minute per identity, shared by every node of the store: refused hits are not counted, and
 * Retry-After is when the oldest counted hit leaves the window.
 */
export interface RateLimitStore {
  /** Counts one request of `identity` unless it is over `limit` in the last minute. */
  hit(identity: string, limit: number): Promise<RateDecision>;
  /**
   * `hit`, decided on this node without a round trip where the counts live here (one process per data dir);
   * undefined where they are shared by nodes (then call `hit`).
   */
  hitNow(identity: string, limit: number): RateDecision | undefined;
  /** What `hit` would report, without counting (CORS preflights). */
  peek(identity: string, limit: number): Promise<RateDecision>;
}
