/**
 * One AbortController per upstream call that fires on the caller's abort or on any armed deadline, and
 * remembers which deadline fired so the error can say why (for logs; visitors see a generic message).
 */
export interface Deadlines {
  readonly signal: AbortSignal;
  /** name of the deadline that fired, if any */
  readonly expired: string | undefined;
  arm(ms: number, name: string): () => void;
  dispose(): void;
}

export function createDeadlines(callerSignal: AbortSignal | undefined): Deadlines {
  const controller = new AbortController();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let expired: string | undefined;
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
  if (callerSignal?.aborted) onCallerAbort();

  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    arm(ms, name) {
      const timer = setTimeout(() => {
        expired ??= name;
        controller.abort(new Error(`${name} after ${ms} ms`));
      }, ms);
      timers.add(timer);
      return () => {
        clearTimeout(timer);
        timers.delete(timer);
      };
    },
    // Aborting on dispose is deliberate: it closes the upstream connection when the consumer stops early.
    dispose() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      callerSignal?.removeEventListener("abort", onCallerAbort);
      controller.abort();
    },
  };
}
