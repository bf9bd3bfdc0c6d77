/**
 * Sliding-log limiter: exact "N per rolling minute". At most `limit` timestamps are kept per identity,
 * so memory is bounded by limit × active identities; idle identities are swept.
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterSeconds: number;
}

export function createRateLimiter(opts: { windowMs?: number; now?: () => number } = {}) {
  const windowMs = opts.windowMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const logs = new Map<string, number[]>();
  let lastSweep = now();

  const sweep = (t: number) => {
    if (t - lastSweep < windowMs) return;
    lastSweep = t;
    for (const [k, v] of logs) if ((v[v.length - 1] ?? 0) <= t - windowMs) logs.delete(k);
  };

  return {
    hit(identity: string, limit: number): RateDecision {
      const t = now();
      sweep(t);
      let log = logs.get(identity);
      if (!log) {
        log = [];
        logs.set(identity, log);
      }
      while (log.length > 0 && (log[0] as number) <= t - windowMs) log.shift();
      if (log.length >= limit) {
        const retry = Math.max(1, Math.ceil(((log[0] as number) + windowMs - t) / 1000));
        return { allowed: false, limit, remaining: 0, retryAfterSeconds: retry };
      }
      log.push(t);
      return { allowed: true, limit, remaining: limit - log.length, retryAfterSeconds: 0 };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
