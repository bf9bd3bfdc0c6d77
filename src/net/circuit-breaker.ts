/**
 * A circuit breaker for one model server. After `failures` consecutive failures (timeouts, refused connections,
 * 5xx) it opens: calls fail at once for `coolDownMs`, so every visitor's question goes on without that server
 * (keyword retrieval, no rerank) instead of each waiting out its deadline. Then it is half-open: one call goes
 * through as a probe; its success closes the circuit, its failure opens it for another cool-down.
 */
export type CircuitState = "closed" | "open" | "half-open";

export interface CircuitSnapshot {
  name: string;
  url: string;
  state: CircuitState;
  /** consecutive failures so far */
  failures: number;
  /** when it last opened (ms since epoch), and when the next probe may go */
  openedAt: number | null;
  retryAt: number | null;
  /** the failure that opened it */
  lastError: string | null;
}

export interface CircuitBreaker {
  /** true when a call may go now (closed, or the half-open probe); false: fail at once */
  allow(): boolean;
  success(): void;
  failure(error: string): void;
  snapshot(): CircuitSnapshot;
  /** ms until the next probe may go (0 when closed) */
  retryInMs(): number;
}

export interface BreakerOptions {
  name: string;
  url: string;
  failures: number;
  coolDownMs: number;
  now?: () => number;
  /** after a change of state: for the status file and logs */
  onChange?: (s: CircuitSnapshot) => void;
}

export function createCircuitBreaker(opts: BreakerOptions): CircuitBreaker {
  const now = opts.now ?? Date.now;
  let state: CircuitState = "closed";
  let failures = 0;
  let openedAt: number | null = null;
  let probing = false;
  let lastError: string | null = null;
  const snapshot = (): CircuitSnapshot => ({
    name: opts.name,
    url: opts.url,
    state,
    failures,
    openedAt,
    retryAt: openedAt === null ? null : openedAt + opts.coolDownMs,
    lastError,
  });
  const become = (next: CircuitState) => {
    if (next === state) return;
    state = next;
    opts.onChange?.(snapshot());
  };
  return {
    allow() {
      if (state === "closed") return true;
      if (state === "open" && now() - (openedAt ?? 0) >= opts.coolDownMs) {
        become("half-open");
        probing = false;
      }
      if (state === "half-open" && !probing) {
        probing = true;
        return true;
      }
      return false;
    },
    success() {
      failures = 0;
      probing = false;
      openedAt = null;
      lastError = null;
      become("closed");
    },
    failure(error) {
      failures++;
      probing = false;
      // a failed probe opens it for another cool-down; calls started before it opened change nothing
      const opens = state === "half-open" || (state === "closed" && failures >= opts.failures);
      if (!opens) return;
      openedAt = now();
      lastError = error;
      state = "open";
      opts.onChange?.(snapshot());
    },
    snapshot,
    retryInMs: () => (state === "closed" || openedAt === null ? 0 : Math.max(0, openedAt + opts.coolDownMs - now())),
  };
}
