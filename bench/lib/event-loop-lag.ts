/**
 * Longest event-loop stall while some work runs: a 5 ms interval timer records gaps between its ticks. The gap up
 * to stop() counts too, or work that blocks the whole time would show no stall at all.
 */
export function watchEventLoopLag(intervalMs = 5): { stop(): number } {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - intervalMs);
    last = now;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(worst, performance.now() - last - intervalMs, 0);
    },
  };
}
