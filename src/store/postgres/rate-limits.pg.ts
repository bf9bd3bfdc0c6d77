import type { SQL } from "bun";
import type { RateDecision, RateLimitStore } from "../contract/rate-limits.contract.ts";

const WINDOW_MS = 60_000;

interface HitRow {
  allowed: boolean;
  in_window: number;
  oldest: string | number | null;
  now_ms: string | number;
}

/**
 * Exact "N per rolling minute" per identity, shared by every node: a sliding log of counted requests in
 * PostgreSQL (migration 003), decided by rate_limit_hit() in one round trip under an advisory lock per identity,
 * so concurrent hits on any number of connections never let limit + 1 through. Decisions match the in-memory
 * limiter (store/sqlite/memory-rate-limits.ts): refused hits are not counted, Retry-After is when the oldest counted hit
 * leaves the window. Identities that went quiet are swept once a window by whichever node notices first.
 */
export function createPgRateLimits(sql: SQL, opts: { windowMs?: number } = {}): RateLimitStore {
  const windowMs = opts.windowMs ?? WINDOW_MS;
  let lastSweep = Date.now();
  const sweep = () => {
    const t = Date.now();
    if (t - lastSweep < windowMs) return;
    lastSweep = t;
    // best effort: a failed sweep only leaves expired rows for the next one
    sql`SELECT rate_limit_sweep(${windowMs}, 10000)`.then(
      () => {},
      () => {},
    );
  };
  const decide = async (identity: string, limit: number, count: boolean): Promise<RateDecision> => {
    const [r] = (await sql`SELECT * FROM rate_limit_hit(${identity}, ${limit}, ${windowMs}, ${count})`) as HitRow[];
    if (!r) throw new Error("rate_limit_hit returned no row");
    const inWindow = Number(r.in_window);
    if (r.allowed) return { allowed: true, limit, remaining: Math.max(0, limit - inWindow - (count ? 1 : 0)), retryAfterSeconds: 0 };
    const retry = count && r.oldest !== null ? Math.max(1, Math.ceil((Number(r.oldest) + windowMs - Number(r.now_ms)) / 1000)) : 0;
    return { allowed: false, limit, remaining: 0, retryAfterSeconds: retry };
  };
  return {
    async hit(identity: string, limit: number): Promise<RateDecision> {
      sweep();
      return decide(identity, limit, true);
    },
    /** The counts are shared by every node: always a round trip. */
    hitNow: () => undefined,
    peek(identity: string, limit: number): Promise<RateDecision> {
      return decide(identity, limit, false);
    },
  };
}
