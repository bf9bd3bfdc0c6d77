import { appError } from "../errors/index.ts";
import type { CompleteRequest, GenerateEvent, GenerateRequest, LlmBackend } from "./backend.ts";

export interface BoundedBackendOptions {
  /** generations running at once */
  concurrency: number;
  /** requests allowed to wait for a slot; one more is refused at once */
  maxQueue: number;
  retryAfterSeconds?: number;
}

/**
 * A concurrency gate in front of a backend. A local model serves one or two answers at a time; letting
 * hundreds of requests pile up only makes every visitor wait, so the excess fails fast with `overloaded`.
 */
export function createBoundedBackend(backend: LlmBackend, opts: BoundedBackendOptions): LlmBackend {
  let running = 0;
  const waiting: (() => void)[] = [];

  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  /** Resolves true once a slot is ours, false if the caller aborted while waiting. */
  function acquire(signal?: AbortSignal): Promise<boolean> {
    if (running < opts.concurrency) {
      running++;
      return Promise.resolve(true);
    }
    if (waiting.length >= opts.maxQueue) {
      throw appError("overloaded", { headers: { "Retry-After": String(opts.retryAfterSeconds ?? 2) } });
    }
    return new Promise((resolve) => {
      // A released slot is handed over directly, so `running` stays the same.
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(true);
      };
      const onAbort = () => {
        waiting.splice(waiting.indexOf(grant), 1);
        resolve(false);
      };
      waiting.push(grant);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  async function* generate(req: GenerateRequest): AsyncGenerator<GenerateEvent> {
    if (req.signal?.aborted) return;
    if (!(await acquire(req.signal))) return;
    try {
      yield* backend.generate(req);
    } finally {
      release();
    }
  }

  const inner = backend.complete?.bind(backend);
  const complete = inner
    ? async (req: CompleteRequest): Promise<string> => {
        if (!(await acquire(req.signal))) throw req.signal?.reason;
        try {
          return await inner(req);
        } finally {
          release();
        }
      }
    : undefined;

  return {
    name: backend.name,
    generate,
    ...(complete ? { complete } : {}),
    countTokens: (text) => backend.countTokens(text),
    close: () => backend.close(),
  };
}
