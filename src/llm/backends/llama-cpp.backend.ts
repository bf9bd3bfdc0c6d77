import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { appError } from "../../errors/index.ts";
import type { CompleteRequest, GenerateEvent, GenerateRequest, LlmBackend } from "../backend.ts";
import { createEventChannel } from "../event-channel.ts";
import { type LlamaWorkerProcess, spawnLlamaWorker } from "./llama-worker-process.ts";

export interface LlamaCppOptions {
  modelPath: string;
  /** CPU threads for llama.cpp; half the cores when absent */
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
  // llama.cpp's threads spin while they wait for each other; on all cores they fight the HTTP process and
  // embedder for CPU and token rates collapse (seen: 30 ms vs 2.5 s for 16 tokens on 2 cores). Half is safe.
  const threads = opts.threads ?? Math.max(1, Math.floor(availableParallelism() / 2));
  const down = (reason: string) =>
    appError("backend_down", {
      headers: { "Retry-After": String(opts.retryAfterSeconds ?? 5) },
      cause: new Error(`llama worker: ${reason}`),
    });
  let current: LlamaWorkerProcess | undefined;
  let closed = false;

  function spawnWorker(): LlamaWorkerProcess {
    const worker = spawnLlamaWorker({
      command,
      init: { type: "init", modelPath: opts.modelPath, threads, contextSize: opts.contextSize ?? 4096 },
      startTimeoutMs: opts.startTimeoutMs ?? 120_000,
      down,
      // Forget the dead worker so the next request starts a fresh one.
      onExit: () => {
        if (current === worker) current = undefined;
      },
    });
    return worker;
  }

  async function readyWorker(signal?: AbortSignal): Promise<LlamaWorkerProcess | undefined> {
    if (closed) throw down("backend closed");
    try {
      current ??= spawnWorker();
    } catch (e) {
      throw down(`cannot start ${command.join(" ")}: ${e instanceof Error ? e.message : String(e)}`);
    }
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
    worker.send({
      type: "generate",
      id,
      messages: req.messages,
      maxTokens: req.maxTokens,
      temperature: req.temperature,
    });
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
