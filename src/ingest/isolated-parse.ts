import { join } from "node:path";
import { appError, errorCatalogue } from "../errors/index.ts";
import type { ParseDocumentOptions } from "./parse.ts";
import { PARSE_WORKER_COMMAND, REPLY_MARKER, type WorkerReply } from "./parse-worker.ts";
import type { ParsedDocument } from "./types.ts";

export interface IsolationOptions {
  /** how to start a worker; default: see defaultWorkerCommand() */
  command?: string[];
  /** wall-clock limit; the worker is SIGKILLed past it. Default 60 s. */
  timeoutMs?: number;
  /** address-space cap for the worker (`ulimit -v`), 0 = none. Default 2048 MB. */
  memoryLimitMb?: number;
}

export const DEFAULT_ISOLATION = { timeoutMs: 60_000, memoryLimitMb: 2048 } as const;

/**
 * From source: this Bun running parse-worker.ts. In a `bun build --compile` binary the sources live in
 * Bun's virtual filesystem, so the binary re-runs itself with the hidden worker command instead.
 */
export function defaultWorkerCommand(): string[] {
  const compiled = import.meta.path.startsWith("/$bunfs/") || /^[a-z]:\\~bun\\/i.test(import.meta.path);
  if (compiled) return [process.execPath, PARSE_WORKER_COMMAND];
  return [process.execPath, "--smol", join(import.meta.dir, "parse-worker.ts")];
}

/**
 * parseDocument in a child process, so a parser that hangs, loops or runs out of memory costs one
 * document (AppError document_unreadable) instead of the server. Never blocks the event loop.
 */
export async function isolatedParse(
  bytes: Uint8Array,
  opts: ParseDocumentOptions,
  isolation: IsolationOptions = {},
): Promise<ParsedDocument> {
  const timeoutMs = isolation.timeoutMs ?? DEFAULT_ISOLATION.timeoutMs;
  const argv = withMemoryLimit(isolation.command ?? defaultWorkerCommand(), isolation.memoryLimitMb ?? DEFAULT_ISOLATION.memoryLimitMb);
  const header = `${JSON.stringify({ maxPages: opts.maxPages, maxInflatedBytes: opts.maxInflatedBytes, filename: opts.filename })}\n`;
  const child = Bun.spawn(argv, { stdin: new Blob([header, bytes]), stdout: "pipe", stderr: "pipe" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, timeoutMs);
  try {
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    if (timedOut) throw appError("document_unreadable", { cause: new Error(`parse timed out after ${timeoutMs} ms`) });
    const reply = readReply(stdout);
    if (!reply) {
      throw appError("document_unreadable", { cause: new Error(`parse worker exited with ${exitCode}: ${stderr.slice(-2000)}`) });
    }
    if (!reply.ok) throw appError(reply.code in errorCatalogue ? reply.code : "document_unreadable");
    return reply.doc;
  } finally {
    clearTimeout(timer);
  }
}

function withMemoryLimit(command: string[], memoryLimitMb: number): string[] {
  if (memoryLimitMb <= 0 || process.platform === "win32") return command;
  // exec keeps the worker's pid, so a timeout kill hits the worker itself and not just the shell
  const script = 'ulimit -v "$1" || exit 97; shift; exec "$@"';
  return ["/bin/sh", "-c", script, "sh", String(Math.floor(memoryLimitMb * 1024)), ...command];
}

function readReply(stdout: string): WorkerReply | undefined {
  const at = stdout.lastIndexOf(REPLY_MARKER);
  if (at === -1) return undefined;
  try {
    return JSON.parse(stdout.slice(at + REPLY_MARKER.length)) as WorkerReply;
  } catch {
    return undefined;
  }
}
