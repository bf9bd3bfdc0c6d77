/**
 * Turns push-style callbacks (IPC messages, timers) into a pull-style async iterator. Events pushed before
 * anyone pulls are buffered; `fail` makes the next pull throw; `end` finishes the iteration.
 */
export interface EventChannel<T> {
  push(value: T): void;
  end(): void;
  fail(error: unknown): void;
  readonly closed: boolean;
  next(): Promise<IteratorResult<T>>;
}

export function createEventChannel<T>(): EventChannel<T> {
  const buffered: T[] = [];
  let finished = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;

  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  return {
    get closed() {
      return finished || failure !== undefined;
    },
    push(value) {
      if (finished || failure) return;
      buffered.push(value);
      notify();
    },
    end() {
      finished = true;
      notify();
    },
    fail(error) {
      if (finished || failure) return;
      failure = { error };
      notify();
    },
    async next() {
      for (;;) {
        if (buffered.length > 0) return { done: false, value: buffered.shift() as T };
        if (failure) throw failure.error;
        if (finished) return { done: true, value: undefined };
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}
