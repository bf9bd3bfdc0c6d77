/**
 * JSON POSTs to a model server (embeddings, rerank) with what a production client needs: a bounded number of
 * requests in flight, a deadline per attempt, and retries with exponential backoff on the failures that pass
 * (timeouts, refused connections, 408/429/5xx). Everything is async I/O, so a slow server never blocks the
 * event loop; it only makes the callers wait.
 */
import { retryDelayMs } from "../../shared/backoff.ts";

/** The server could not be reached or kept failing: the work should wait, not fail (see training.worker.ts). */
export class ModelServerUnavailableError extends Error {
  override name = "ModelServerUnavailableError";
  readonly code = "model_server_unavailable";
}

/** The server answered, but refused this request or answered nonsense: retrying the same request won't help. */
export class ModelServerRequestError extends Error {
  override name = "ModelServerRequestError";
  constructor(
    message: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(message);
  }
}

export interface ModelServerOptions {
  /** base URL, e.g. http://127.0.0.1:11434/v1 (a trailing slash is ignored) */
  url: string;
  apiKey?: string;
  concurrency: number;
  timeoutMs: number;
  retries: number;
  /** first backoff delay; doubles per retry (with jitter) up to maxBackoffMs */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export interface PostOptions {
  signal?: AbortSignal;
  retries?: number;
  timeoutMs?: number;
  priority?: "urgent" | "routine";
}

export interface ModelServer {
  readonly url: string;
  /** `urgent` requests (a visitor waits) take the next free slot before routine ones (training) */
  post<T>(path: string, body: unknown, opts?: PostOptions): Promise<T>;
  /** requests waiting for a free slot right now (for tests and diagnostics) */
  readonly waiting: number;
}

/** The longest a visitor's question waits on a model server (query embedding, rerank) before docchat goes on without it. */
export const QUERY_TIMEOUT_MS = 10_000;

const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * At most `limit` holders; a released slot is handed straight to the next waiter (so a newcomer can never slip in
 * between), and urgent waiters (a visitor's question) go before routine ones (training batches).
 */
function createSemaphore(limit: number) {
  let active = 0;
  const urgent: (() => void)[] = [];
  const routine: (() => void)[] = [];
  return {
    get waiting() {
      return urgent.length + routine.length;
    },
    async run<T>(fn: () => Promise<T>, priority: "urgent" | "routine" = "routine"): Promise<T> {
      if (active < limit) active++;
      else await new Promise<void>((resolve) => (priority === "urgent" ? urgent : routine).push(resolve));
      try {
        return await fn();
      } finally {
        const next = urgent.shift() ?? routine.shift();
        if (next) next();
        else active--;
      }
    },
  };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** Where an address points, without credentials or query string (for logs and error messages). */
export function describeUrl(url: string): string {
  const u = URL.parse(url);
  return u ? `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}` : "(invalid URL)";
}

export function createModelServer(opts: ModelServerOptions): ModelServer {
  const base = opts.url.replace(/\/+$/, "");
  if (!URL.canParse(base) || !/^https?:/.test(base)) throw new Error(`${describeUrl(opts.url)} is not an http:// or https:// URL`);
  const slots = createSemaphore(Math.max(1, opts.concurrency));
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  const where = describeUrl(base);

  async function attempt<T>(path: string, body: string, signal: AbortSignal | undefined, timeoutMs: number): Promise<T> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, { method: "POST", headers, body, signal: combined });
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      const why = deadline.aborted ? `no answer within ${timeoutMs} ms` : (e as Error).message;
      throw new ModelServerUnavailableError(`${where}${path}: ${why}`);
    }
    const text = await res.text().catch(() => "");
    if (RETRYABLE.has(res.status)) throw new ModelServerUnavailableError(`${where}${path} answered HTTP ${res.status}`);
    if (!res.ok) throw new ModelServerRequestError(`${where}${path} answered HTTP ${res.status}: ${text.slice(0, 300)}`, res.status, text);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ModelServerRequestError(`${where}${path} answered something that is not JSON`, res.status, text.slice(0, 300));
    }
  }

  return {
    url: base,
    get waiting() {
      return slots.waiting;
    },
    async post<T>(path: string, payload: unknown, o: PostOptions = {}): Promise<T> {
      const body = JSON.stringify(payload);
      const retries = o.retries ?? opts.retries;
      for (let n = 0; ; n++) {
        try {
          return await slots.run(() => attempt<T>(path, body, o.signal, o.timeoutMs ?? opts.timeoutMs), o.priority);
        } catch (e) {
          if (!(e instanceof ModelServerUnavailableError) || n >= retries || o.signal?.aborted) throw e;
          await sleep(retryDelayMs(n + 1, { baseMs: opts.backoffMs ?? 250, maxMs: opts.maxBackoffMs ?? 5000 }), o.signal);
        }
      }
    },
  };
}
