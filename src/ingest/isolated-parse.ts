import { join } from "node:path";
import { appError, errorCatalogue } from "../errors/index.ts";
import type { ParseDocumentOptions } from "./parse.ts";
import { PARSE_WORKER_COMMAND, REPLY_MARKER, type WorkerReply, type WorkerRequest } from "./parse-worker-protocol.ts";
import type { ParsedDocument } from "./types.ts";
import { watchResidentMemory, withAddressSpaceLimit } from "./worker-watchdog.ts";

export interface IsolationOptions {
  /** how to start a worker; default: see defaultWorkerCommand() */
  command?: string[];
  /** wall-clock limit; the worker is SIGKILLed past it. Default 60 s. */
  timeoutMs?: number;
  /**
   * resident-memory limit for the worker (Linux), 0 = none. Default 2048 MB: mammoth needs about 1 GB for a
   * 0.5 MB DOCX holding 280k characters. An address-space cap of max(8 GB, 4x this) backs it up.
   */
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
  return [process.execPath, join(import.meta.dir, "parse-worker.ts")];
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
  const memoryLimitMb = isolation.memoryLimitMb ?? DEFAULT_ISOLATION.memoryLimitMb;
  const command = isolation.command ?? defaultWorkerCommand();
  const argv = memoryLimitMb > 0 ? withAddressSpaceLimit(command, Math.max(8192, memoryLimitMb * 4)) : command;
  const request: WorkerRequest = { maxPages: opts.maxPages, maxInflatedBytes: opts.maxInflatedBytes, filename: opts.filename };
  const header = new TextEncoder().encode(`${JSON.stringify(request)}\n`);
  const input = new Uint8Array(header.byteLength + bytes.byteLength);
  input.set(header);
  input.set(bytes, header.byteLength);
  const child = Bun.spawn(argv, { stdin: input, stdout: "pipe", stderr: "pipe" });
  let killedFor: string | undefined;
  const kill = (reason: string) => {
    killedFor ??= reason;
    child.kill("SIGKILL");
  };
  const timer = setTimeout(() => kill(`parse timed out after ${timeoutMs} ms`), timeoutMs);
  const stopWatch = watchResidentMemory(child.pid, memoryLimitMb * 1024 * 1024, () =>
    kill(`parse worker exceeded ${memoryLimitMb} MB resident memory`),
  );
  try {
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    if (killedFor) throw appError("document_unreadable", { cause: new Error(killedFor) });
    const reply = readReply(stdout);
    if (!reply) {
      throw appError("document_unreadable", { cause: new Error(`parse worker exited with ${exitCode}: ${stderr.slice(-2000)}`) });
    }
    if (!reply.ok) throw appError(reply.code in errorCatalogue ? reply.code : "document_unreadable");
    return reply.doc;
  } finally {
    clearTimeout(timer);
    stopWatch();
  }
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
