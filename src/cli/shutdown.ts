import type { Server } from "bun";
import type { Logger } from "../log.ts";

export type ShutdownSignal = "SIGTERM" | "SIGINT";

/**
 * Resolves on the first SIGTERM/SIGINT. The handlers stay installed for the rest of the process, so a second
 * signal does not kill it mid-checkpoint: it calls `onRepeat` (cut in-flight requests off now) instead.
 */
export function waitForShutdownSignal(onRepeat: () => void): Promise<ShutdownSignal> {
  return new Promise((resolve) => {
    let received = false;
    const handler = (signal: ShutdownSignal) => {
      if (received) return onRepeat();
      received = true;
      resolve(signal);
    };
    process.on("SIGTERM", handler);
    process.on("SIGINT", handler);
  });
}

/**
 * Stops accepting connections, lets in-flight requests and streams finish for up to `timeoutMs`, then closes
 * whatever is left. Bun's stop() closes idle keep-alive connections at once and resolves when all are closed.
 */
export async function drainServer(
  server: Server<unknown>,
  opts: { timeoutMs: number; log: Logger; cut: Promise<void> },
): Promise<{ ms: number; forced: boolean }> {
  const started = performance.now();
  const pending = server.pendingRequests;
  if (pending > 0) opts.log.info("waiting for in-flight requests", { pending, timeoutMs: opts.timeoutMs });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), opts.timeoutMs);
  });
  const outcome = await Promise.race([server.stop(false).then(() => "drained" as const), deadline, opts.cut.then(() => "cut" as const)]);
  clearTimeout(timer);
  const forced = outcome !== "drained";
  if (forced) {
    opts.log.warn("closing in-flight requests", { reason: outcome, pending: server.pendingRequests });
    await server.stop(true);
  }
  return { ms: Math.round(performance.now() - started), forced };
}
