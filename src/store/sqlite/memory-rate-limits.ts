import type { RateDecision, RateLimitStore } from "../contract/rate-limits.contract.ts";

/** One identity's counted hits, oldest first: a ring of timestamps that grows (by doubling) up to the limit. */
interface Log {
  times: Float64Array;
  /** index of the oldest timestamp */
  head: number;
  count: number;
  last: number;
}

const at = (log: Log, i: number): number => log.times[(log.head + i) % log.times.length] as number;

function append(log: Log, t: number): void {
  if (log.count === log.times.length) {
    const grown = new Float64Array(log.times.length * 2);
    for (let i = 0; i < log.count; i++) grown[i] = at(log, i);
    log.times = grown;
    log.head = 0;
  }
  log.times[(log.head + log.count) % log.times.length] = t;
  log.count++;
  log.last = t;
}

/**
 * Sliding-log limiter: exact "N per rolling minute". Each identity keeps at most `limit` timestamps in arrival
 * order in a ring (a typed array: a key at a million hits a minute costs a few MB and no garbage collector
 * work); expiry advances the head, and idle identities are swept once a window.
 */
export function createRateLimiter(opts: { windowMs?: number; now?: () => number } = {}) {
  const windowMs = opts.windowMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const logs = new Map<string, Log>();
  let lastSweep = now();

  const sweep = (t: number) => {
    if (t - lastSweep < windowMs) return;
    lastSweep = t;
    for (const [k, v] of logs) if (v.last <= t - windowMs) logs.delete(k);
  };
  const expire = (log: Log, t: number) => {
    while (log.count > 0 && at(log, 0) <= t - windowMs) {
      log.head = (log.head + 1) % log.times.length;
      log.count--;
    }
  };

  return {
    /** What `hit` would report, without counting a request (CORS preflights). */
    peek(identity: string, limit: number): RateDecision {
      const log = logs.get(identity);
      const t = now();
      let inWindow = 0;
      if (log) for (let i = 0; i < log.count; i++) if (at(log, i) > t - windowMs) inWindow++;
      return { allowed: inWindow < limit, limit, remaining: Math.max(0, limit - inWindow), retryAfterSeconds: 0 };
    },
    hit(identity: string, limit: number): RateDecision {
      const t = now();
      sweep(t);
      let log = logs.get(identity);
      if (!log) {
        log = { times: new Float64Array(8), head: 0, count: 0, last: t };
        logs.set(identity, log);
      }
      expire(log, t);
      if (log.count >= limit) {
        const retry = Math.max(1, Math.ceil((at(log, 0) + windowMs - t) / 1000));
        return { allowed: false, limit, remaining: 0, retryAfterSeconds: retry };
      }
      append(log, t);
      return { allowed: true, limit, remaining: limit - log.count, retryAfterSeconds: 0 };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** The SQLite store's rate limits: one process per data dir (data-dir-lock.ts), so an in-memory sliding log is exact. */
export function createMemoryRateLimits(opts: Parameters<typeof createRateLimiter>[0] = {}): RateLimitStore {
  const limiter = createRateLimiter(opts);
  return {
    hit: async (identity, limit) => limiter.hit(identity, limit),
    hitNow: (identity, limit) => limiter.hit(identity, limit),
    peek: async (identity, limit) => limiter.peek(identity, limit),
  };
}
