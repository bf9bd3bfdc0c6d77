import { fileURLToPath } from "node:url";
import type { Subprocess } from "bun";
import { appError, type AppError } from "../../errors/index.ts";
import type { CompleteRequest, GenerateEvent, GenerateRequest, LlmBackend } from "../backend.ts";
import { createEventChannel } from "../event-channel.ts";
import type { FromLlamaWorker, ToLlamaWorker } from "./llama-protocol.ts";

export interface LlamaCppOptions {
  modelPath: string;
  /** CPU threads for llama.cpp; its own default (all cores) when absent */
  threads?: number;
  contextSize?: number;
  /** how to start the worker; a compiled binary passes [process.execPath, "__llama-worker"] */
  command?: string[];
  /** model load deadline for a (re)started worker */
  startTimeoutMs?: number;
  retryAfterSeconds?: number;
}

export interface LlamaCppBackend extends LlmBackend {
  readonly name: "llama";
  /** pid of the running worker child, if one is up (for diagnostics and crash tests) */
  workerPid(): number | undefined;
}

/** Per-request listener on worker messages; `fail` is called when the worker dies under it. */
interface Pending {
  receive(msg: FromLlamaWorker): void;
  fail(error: AppError): void;
}

interface Worker {
  proc: Subprocess;
  ready: Promise<void>;
  pending: Map<string, Pending>;
  send(msg: ToLlamaWorker): void;
}

export const defaultLlamaWorkerCommand = (): string[] => [
  process.execPath,
  fileURLToPath(new URL("./llama-worker.entry.ts", import.meta.url)),
];

/**
 * A local GGUF model run by node-llama-cpp in a child process, so a native crash or OOM kills the child and
 * not the HTTP server. The child is started on first use and again on the first request after it died.
 */
export function createLlamaCppBackend(opts: LlamaCppOptions): LlamaCppBackend {
  const command = opts.command ?? defaultLlamaWorkerCommand();
  const down = (reason: string) =>
    appError("backend_down", {
      headers: { "Retry-After": String(opts.retryAfterSeconds ?? 5) },
      cause: new Error(`llama worker: ${reason}`),
    });
  let current: Worker | undefined;
  let closed = false;

  function spawnWorker(): Worker {
    const pending = new Map<string, Pending>();
    let settleReady: (error?: AppError) => void = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      settleReady = (error) => (error ? reject(error) : resolve());
    });
    ready.catch(() => {}); // observed by requests; an idle crash must not become an unhandled rejection
    const proc = Bun.spawn(command, {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "inherit", // native crash reports belong in the server log
      ipc(raw) {
        const msg = raw as FromLlamaWorker;
        if (msg.type === "ready") settleReady();
        else if (msg.type === "fatal") settleReady(down(`model failed to load: ${msg.message}`));
        else pending.get(msg.id)?.receive(msg);
      },
      onExit(_proc, exitCode, signalCode) {
        if (current === worker) current = undefined;
        const error = down(`exited (code ${exitCode}, signal ${signalCode})`);
        settleReady(error);
        for (const p of pending.values()) p.fail(error);
        pending.clear();
      },
    });
    const worker: Worker = {
      proc,
      ready,
      pending,
      // Sending to a child that just died throws; onExit reports that death to every request.
      send: (msg) => {
        try {
          proc.send(msg);
        } catch {}
      },
    };
    const timer = setTimeout(() => {
      settleReady(down("model load timed out"));
      proc.kill();
    }, opts.startTimeoutMs ?? 120_000);
    ready.finally(() => clearTimeout(timer)).catch(() => {});
    worker.send({ type: "init", modelPath: opts.modelPath, threads: opts.threads, contextSize: opts.contextSize ?? 4096 });
    return worker;
  }

  async function readyWorker(signal?: AbortSignal): Promise<Worker | undefined> {
    if (closed) throw down("backend closed");
    current ??= spawnWorker();
    const worker = current;
    if (!signal) return worker.ready.then(() => worker);
    // A big model can take a while to load; a caller that gives up meanwhile should not wait for it.
    let onAbort = () => {};
    const aborted = new Promise<undefined>((resolve) => {
      onAbort = () => resolve(undefined);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([worker.ready.then(() => worker), aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  async function* generate(req: GenerateRequest): AsyncGenerator<GenerateEvent> {
    if (req.signal?.aborted) return;
    const worker = await readyWorker(req.signal);
    if (!worker || req.signal?.aborted) return;
    const id = crypto.randomUUID();
    const events = createEventChannel<GenerateEvent>();
    worker.pending.set(id, {
      receive(msg) {
        if (msg.type === "delta") events.push({ type: "delta", text: msg.text });
        else if (msg.type === "error") events.fail(down(msg.message));
        else if (msg.type === "done") {
          const { promptTokens, completionTokens, finishReason } = msg;
          events.push({ type: "done", promptTokens, completionTokens, finishReason });
          events.end();
        }
      },
      fail: (error) => events.fail(error),
    });
    const onAbort = () => events.end();
    req.signal?.addEventListener("abort", onAbort, { once: true });
    worker.send({ type: "generate", id, messages: req.messages, maxTokens: req.maxTokens, temperature: req.temperature });
    let finished = false;
    try {
      for (let r = await events.next(); !r.done; r = await events.next()) {
        if (req.signal?.aborted) return;
        finished = r.value.type === "done";
        yield r.value;
      }
    } finally {
      req.signal?.removeEventListener("abort", onAbort);
      worker.pending.delete(id);
      // Caller aborted or stopped reading: let the child stop generating (stopOnAbortSignal) instead of finishing.
      if (!finished) worker.send({ type: "abort", id });
    }
  }

  async function countTokens(text: string): Promise<number> {
    const worker = await readyWorker();
    if (!worker) throw down("no worker");
    const id = crypto.randomUUID();
    return new Promise<number>((resolve, reject) => {
      worker.pending.set(id, {
        receive(msg) {
          worker.pending.delete(id);
          if (msg.type === "count") resolve(msg.tokens);
          else reject(down(msg.type === "error" ? msg.message : `unexpected ${msg.type}`));
        },
        fail: reject,
      });
      worker.send({ type: "count", id, text });
    });
  }

  async function complete(req: CompleteRequest): Promise<string> {
    const timeout = req.timeoutMs === undefined ? undefined : AbortSignal.timeout(req.timeoutMs);
    const signals = [req.signal, timeout].filter((s): s is AbortSignal => s !== undefined);
    let text = "";
    for await (const e of generate({ ...req, signal: AbortSignal.any(signals) })) if (e.type === "delta") text += e.text;
    if (req.signal?.aborted) throw req.signal.reason;
    if (timeout?.aborted) throw down("complete timed out");
    return text;
  }

  return {
    name: "llama",
    generate,
    countTokens,
    complete,
    workerPid: () => current?.proc.pid,
    async close() {
      closed = true;
      const worker = current;
      current = undefined;
      if (!worker) return;
      worker.proc.kill();
      await worker.proc.exited;
    },
  };
}
