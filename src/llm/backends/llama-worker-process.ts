import type { Subprocess } from "bun";
import type { AppError } from "../../errors/index.ts";
import type { FromLlamaWorker, ToLlamaWorker } from "./llama-protocol.ts";

/** Per-request listener on worker messages; `fail` is called when the worker dies under it. */
export interface PendingRequest {
  receive(msg: FromLlamaWorker): void;
  fail(error: AppError): void;
}

/** The parent's handle on one llama worker child. */
export interface LlamaWorkerProcess {
  readonly proc: Subprocess;
  /** settles once the model is loaded; rejects with backend_down if it cannot be */
  readonly ready: Promise<void>;
  readonly pending: Map<string, PendingRequest>;
  send(msg: ToLlamaWorker): void;
}

export function spawnLlamaWorker(opts: {
  command: string[];
  init: Extract<ToLlamaWorker, { type: "init" }>;
  startTimeoutMs: number;
  /** builds the backend_down error for a reason (kept in `cause`, for logs) */
  down: (reason: string) => AppError;
  onExit: () => void;
}): LlamaWorkerProcess {
  const pending = new Map<string, PendingRequest>();
  let settleReady: (error?: AppError) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    settleReady = (error) => (error ? reject(error) : resolve());
  });
  ready.catch(() => {}); // observed by requests; an idle crash must not become an unhandled rejection

  const proc = Bun.spawn(opts.command, {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "inherit", // native crash reports belong in the server log
    ipc(raw) {
      const msg = raw as FromLlamaWorker;
      if (msg.type === "ready") settleReady();
      else if (msg.type === "fatal") settleReady(opts.down(`model failed to load: ${msg.message}`));
      else pending.get(msg.id)?.receive(msg);
    },
    onExit(_proc, exitCode, signalCode) {
      const error = opts.down(`exited (code ${exitCode}, signal ${signalCode})`);
      settleReady(error);
      for (const p of pending.values()) p.fail(error);
      pending.clear();
      opts.onExit();
    },
  });

  const send = (msg: ToLlamaWorker) => {
    // Sending to a child that just died throws; onExit reports that death to every request.
    try {
      proc.send(msg);
    } catch {}
  };
  const timer = setTimeout(() => {
    settleReady(opts.down("model load timed out"));
    proc.kill();
  }, opts.startTimeoutMs);
  ready.finally(() => clearTimeout(timer)).catch(() => {});
  send(opts.init);
  return { proc, ready, pending, send };
}
