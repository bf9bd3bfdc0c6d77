import type { CompleteRequest, GenerateRequest, LlmBackend } from "./backend.ts";

export interface QueueObserver {
  /** +1 when a call starts waiting for a slot, -1 when it gets one or gives up */
  waiting(delta: 1 | -1): void;
  /** how long a call waited before its slot */
  waited(seconds: number): void;
}

/**
 * Measures a queue from outside: `bound` wraps the backend in its queue; a call has entered when it reaches the
 * queue and has its slot when the queue hands the same request on to the backend. The queue itself stays unaware.
 */
export function observeQueue(backend: LlmBackend, bound: (inner: LlmBackend) => LlmBackend, obs: QueueObserver): LlmBackend {
  const entered = new WeakMap<object, number>();
  const leave = (req: object): boolean => {
    const at = entered.get(req);
    if (at === undefined) return false;
    entered.delete(req);
    obs.waiting(-1);
    obs.waited((performance.now() - at) / 1000);
    return true;
  };
  const enter = (req: object) => {
    entered.set(req, performance.now());
    obs.waiting(1);
  };
  const innerComplete = backend.complete?.bind(backend);
  const outer = bound({
    name: backend.name,
    generate(req: GenerateRequest) {
      leave(req);
      return backend.generate(req);
    },
    ...(innerComplete
      ? {
          complete(req: CompleteRequest) {
            leave(req);
            return innerComplete(req);
          },
        }
      : {}),
    ...(backend.compose ? { compose: backend.compose.bind(backend) } : {}),
    countTokens: (text) => backend.countTokens(text),
    close: () => backend.close(),
  });
  const outerComplete = outer.complete?.bind(outer);
  return {
    name: outer.name,
    async *generate(req: GenerateRequest) {
      enter(req);
      try {
        yield* outer.generate(req);
      } finally {
        // Refused (overloaded) or aborted while waiting: it leaves the queue without a slot.
        leave(req);
      }
    },
    ...(outerComplete
      ? {
          async complete(req: CompleteRequest) {
            enter(req);
            try {
              return await outerComplete(req);
            } finally {
              leave(req);
            }
          },
        }
      : {}),
    ...(outer.compose ? { compose: outer.compose.bind(outer) } : {}),
    countTokens: (text) => outer.countTokens(text),
    close: () => outer.close(),
  };
}
