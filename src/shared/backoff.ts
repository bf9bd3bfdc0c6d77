/**
 * Exponential backoff with "equal jitter": the delay doubles per failed attempt up to `maxMs`, and a random
 * half of it is added so that mail queued during one outage does not retry in lock-step.
 */
export function retryDelayMs(attempt: number, opts: { baseMs: number; maxMs: number }, random: () => number = Math.random): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}
