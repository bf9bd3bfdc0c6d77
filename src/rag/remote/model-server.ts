/**
 * JSON POSTs to a model server (embeddings, rerank) with what a production client needs: a bounded number of
 * requests in flight, a deadline per attempt, and retries with exponential backoff on the failures that pass
 * (timeouts, refused connections, 408/429/5xx). Everything is async I/O, so a slow server never blocks the
 * event loop; it only makes the callers wait.
 */
import { type CircuitBreaker, createCircuitBreaker } from "../../net/circuit-breaker.ts";
import { ResponseTooLargeError, readCappedText } from "../../net/read-capped.ts";
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

/** A reply past the size cap: a request error (no retry), but a fault of the server's as far as its circuit goes. */
export class OversizedReplyError extends ModelServerRequestError {
  override name = "OversizedReplyError";
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
  /** this server's circuit (shared with doctor's status file and metrics); one of its own when absent */
  breaker?: CircuitBreaker;
  /** a reply larger than this is refused unread (default MAX_RESPONSE_BYTES) */
  maxResponseBytes?: number;
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
  readonly breaker: CircuitBreaker;
}

/** Embeddings of a large batch (128 texts × 4096 dimensions) are about 6 MB of JSON; past this a server is broken or hostile. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

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
  const breaker = opts.breaker ?? createCircuitBreaker({ name: "model server", url: where, failures: 3, coolDownMs: 30_000 });
  const maxBytes = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;

  /** One attempt; an oversized reply is a request error (the same request would get the same reply). */
  async function attempt<T>(path: string, body: string, signal: AbortSignal | undefined, timeoutMs: number): Promise<T> {
    try {
      return await send<T>(path, body, signal, timeoutMs);
    } catch (e) {
      if (e instanceof ResponseTooLargeError) throw new OversizedReplyError(`${where}${path}: ${e.message}, refused`, 200, "");
      throw e;
    }
  }

  async function send<T>(path: string, body: string, signal: AbortSignal | undefined, timeoutMs: number): Promise<T> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${base}${path}`, { method: "POST", headers, body, signal: combined });
      text = await readCappedText(res, maxBytes);
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      if (e instanceof ResponseTooLargeError) throw e;
      const why = deadline.aborted ? `no answer within ${timeoutMs} ms` : (e as Error).message;
      throw new ModelServerUnavailableError(`${where}${path}: ${why}`);
    }
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
    breaker,
    get waiting() {
      return slots.waiting;
    },
    /**
     * The circuit hears of each request's outcome (after its retries), not of the caller's own abort. An open
     * circuit refuses urgent requests at once (a visitor waits: keyword retrieval, no rerank); routine ones
     * (training, with their own backoff) still go, and their success closes it.
     */
    async post<T>(path: string, payload: unknown, o: PostOptions = {}): Promise<T> {
      const body = JSON.stringify(payload);
      const retries = o.retries ?? opts.retries;
      const urgent = o.priority === "urgent";
      let last = "";
      for (let n = 0; ; n++) {
        if (urgent && !breaker.allow()) {
          if (n > 0) breaker.failure(last);
          throw new ModelServerUnavailableError(
            `${where}${path}: circuit open after repeated failures; next try in ${Math.ceil(breaker.retryInMs() / 1000)} s`,
          );
        }
        try {
          const out = await slots.run(() => attempt<T>(path, body, o.signal, o.timeoutMs ?? opts.timeoutMs), o.priority);
          breaker.success();
          return out;
        } catch (e) {
          if (o.signal?.aborted) throw e;
          const fault = e instanceof ModelServerUnavailableError || e instanceof OversizedReplyError;
          last = (e as Error).message;
          if (!fault) breaker.success();
          if (!(e instanceof ModelServerUnavailableError) || n >= retries) {
            if (fault) breaker.failure(last);
            throw e;
          }
          await sleep(retryDelayMs(n + 1, { baseMs: opts.backoffMs ?? 250, maxMs: opts.maxBackoffMs ?? 5000 }), o.signal);
        }
      }
    },
  };
}
