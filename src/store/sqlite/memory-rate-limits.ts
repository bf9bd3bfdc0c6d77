import type { RateDecision, RateLimitStore } from "../contract/rate-limits.contract.ts";

interface Log {
  times: number[];
  head: number;
}

/**
 * Sliding-log limiter: exact "N per rolling minute". Each identity keeps at most `limit` timestamps in
 * arrival order; expiry advances a head index instead of shifting (O(1) amortised even for large limits),
 * and idle identities are swept once a window.
 */
export function createRateLimiter(opts: { windowMs?: number; now?: () => number } = {}) {
  const windowMs = opts.windowMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const logs = new Map<string, Log>();
  let lastSweep = now();

  const sweep = (t: number) => {
    if (t - lastSweep < windowMs) return;
    lastSweep = t;
    for (const [k, v] of logs) if ((v.times[v.times.length - 1] ?? 0) <= t - windowMs) logs.delete(k);
  };

  return {
    /** What `hit` would report, without counting a request (CORS preflights). */
    peek(identity: string, limit: number): RateDecision {
      const log = logs.get(identity);
      const t = now();
      const inWindow = log ? log.times.slice(log.head).filter((x) => x > t - windowMs).length : 0;
      return { allowed: inWindow < limit, limit, remaining: Math.max(0, limit - inWindow), retryAfterSeconds: 0 };
    },
    hit(identity: string, limit: number): RateDecision {
      const t = now();
      sweep(t);
      let log = logs.get(identity);
      if (!log) {
        log = { times: [], head: 0 };
        logs.set(identity, log);
      }
      const { times } = log;
      while (log.head < times.length && (times[log.head] as number) <= t - windowMs) log.head++;
      if (log.head > 1024 && log.head * 2 > times.length) {
        times.splice(0, log.head);
        log.head = 0;
      }
      const inWindow = times.length - log.head;
      if (inWindow >= limit) {
        const retry = Math.max(1, Math.ceil(((times[log.head] as number) + windowMs - t) / 1000));
        return { allowed: false, limit, remaining: 0, retryAfterSeconds: retry };
      }
      times.push(t);
      return { allowed: true, limit, remaining: limit - inWindow - 1, retryAfterSeconds: 0 };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** The SQLite store's rate limits: one process per data dir (data-dir-lock.ts), so an in-memory sliding log is exact. */
export function createMemoryRateLimits(opts: Parameters<typeof createRateLimiter>[0] = {}): RateLimitStore {
  const limiter = createRateLimiter(opts);
  return {
    hit: async (identity, limit) => limiter.hit(identity, limit),
    peek: async (identity, limit) => limiter.peek(identity, limit),
  };
}
