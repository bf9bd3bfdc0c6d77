import { appError } from "../errors/index.ts";
import type { CompleteRequest, GenerateEvent, GenerateRequest, LlmBackend, Tenant } from "./backend.ts";
import { createFairWaiting, type Waiter } from "./fair-waiting.ts";

export interface BoundedBackendOptions {
  /** generations running at once */
  concurrency: number;
  /** requests allowed to wait for a slot, all tenants together; one more is refused at once */
  maxQueue: number;
  /** requests one deployment may have waiting (default: all of maxQueue) */
  maxQueuePerDeployment?: number;
  /** requests one account may have waiting, over all its deployments (default: all of maxQueue) */
  maxQueuePerAccount?: number;
  retryAfterSeconds?: number;
}

/** Calls that name no tenant (tools, tests) share one. */
const NOBODY: Tenant = { deploymentId: "", accountId: -1 };

/**
 * A concurrency gate in front of a backend. A local model serves one or two answers at a time; letting
 * hundreds of requests pile up only makes every visitor wait, so the excess fails fast with `overloaded`.
 * Capacity is shared fairly: each deployment and account may hold only part of the wait line, a free slot
 * goes to the accounts (then their deployments) in turn, and when the line is full a newcomer from a tenant
 * with fewer waiting requests takes the place of the newest request of the tenant with the most.
 */
export function createBoundedBackend(backend: LlmBackend, opts: BoundedBackendOptions): LlmBackend {
  let running = 0;
  const waiting = createFairWaiting();
  const perDeployment = opts.maxQueuePerDeployment ?? opts.maxQueue;
  const perAccount = opts.maxQueuePerAccount ?? opts.maxQueue;
  const overloaded = () => appError("overloaded", { headers: { "Retry-After": String(opts.retryAfterSeconds ?? 2) } });

  const release = () => {
    const next = waiting.shift();
    if (next) next.grant();
    else running--;
  };

  /** Makes room for `tenant` in the wait line, or throws `overloaded`. */
  function admit(tenant: Tenant): void {
    const mine = waiting.waitingFor(tenant);
    if (mine.deployment >= perDeployment || mine.account >= perAccount) throw overloaded();
    if (waiting.size < opts.maxQueue) return;
    const heaviest = waiting.heaviest();
    if (!heaviest || heaviest.length <= mine.deployment + 1) throw overloaded();
    waiting.remove(heaviest.waiter);
    heaviest.waiter.refuse(overloaded());
  }

  /** Resolves true once a slot is ours, false if the caller aborted while waiting. */
  function acquire(tenant: Tenant, signal?: AbortSignal): Promise<boolean> {
    if (running < opts.concurrency && waiting.size === 0) {
      running++;
      return Promise.resolve(true);
    }
    admit(tenant);
    return new Promise((resolve, reject) => {
      // A released slot is handed over directly, so `running` stays the same.
      const w: Waiter = {
        tenant,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(true);
        },
        refuse: (e) => {
          signal?.removeEventListener("abort", onAbort);
          reject(e);
        },
      };
      const onAbort = () => {
        waiting.remove(w);
        resolve(false);
      };
      waiting.push(w);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  async function* generate(req: GenerateRequest): AsyncGenerator<GenerateEvent> {
    if (req.signal?.aborted) return;
    if (!(await acquire(req.tenant ?? NOBODY, req.signal))) return;
    try {
      yield* backend.generate(req);
    } finally {
      release();
    }
  }

  const inner = backend.complete?.bind(backend);
  const complete = inner
    ? async (req: CompleteRequest): Promise<string> => {
        if (!(await acquire(req.tenant ?? NOBODY, req.signal))) throw req.signal?.reason;
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
    // composing a quote is instant and uses no model slot
    ...(backend.compose ? { compose: backend.compose.bind(backend) } : {}),
    countTokens: (text) => backend.countTokens(text),
    close: () => backend.close(),
  };
}
