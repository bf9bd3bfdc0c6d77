import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";

const PAGE_SIZE = 4096;

/**
 * Polls a child's resident set size (Linux /proc) and calls `onExceeded` once it passes the limit.
 * Elsewhere it does nothing; the address-space backstop and the timeout still apply.
 */
export function watchResidentMemory(pid: number, limitBytes: number, onExceeded: () => void, intervalMs = 100): () => void {
  if (process.platform !== "linux" || limitBytes <= 0) return () => {};
  return pollPast(() => readResidentBytes(pid), limitBytes, onExceeded, intervalMs);
}

/** Calls `onExceeded` once, the first time `read` gives more than `limit`; returns the stop function. */
function pollPast(
  read: () => number | undefined | Promise<number | undefined>,
  limit: number,
  onExceeded: () => void,
  intervalMs: number,
): () => void {
  let stopped = false;
  const timer = setInterval(async () => {
    const value = await read();
    if (!stopped && value !== undefined && value > limit) {
      stopped = true;
      clearInterval(timer);
      onExceeded();
    }
  }, intervalMs);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux platform docchat runs on). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in ms (Linux), or undefined elsewhere or when it is gone. */
export function readCpuMsNow(pid: number): number | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    // fields after the parenthesised command name: state is field 3, utime 14, stime 15
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Calls `onExceeded` once the process has used `limitMs` of CPU time since this call (Linux). CPU time, not the
 * clock: on a busy machine a document waits for the CPU without being charged for it. Returns a stop function,
 * or null where CPU time cannot be read (the caller keeps a wall-clock limit).
 */
export function watchCpuTime(pid: number, limitMs: number, onExceeded: () => void, intervalMs = 100): (() => void) | null {
  const start = readCpuMsNow(pid);
  if (start === undefined) return null;
  return pollPast(() => (readCpuMsNow(pid) ?? start) - start, limitMs, onExceeded, intervalMs);
}

/** Resident bytes of a process right now (Linux), or undefined elsewhere or when it is gone. */
export function readResidentBytesNow(pid: number): number | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    return residentBytes(readFileSync(`/proc/${pid}/statm`, "utf8"));
  } catch {
    return undefined;
  }
}

async function readResidentBytes(pid: number): Promise<number | undefined> {
  try {
    return residentBytes(await readFile(`/proc/${pid}/statm`, "utf8"));
  } catch {
    return undefined;
  }
}

/** /proc/<pid>/statm's second field is the resident set in pages. */
function residentBytes(statm: string): number | undefined {
  const pages = Number(statm.split(" ")[1]);
  return Number.isFinite(pages) ? pages * PAGE_SIZE : undefined;
}

/**
 * Wraps a command in `ulimit -v`. A cap close to real use slows Bun's GC badly (a 1 GB-RSS DOCX took
 * 18 s instead of 2.5 s under a 2 GB cap), so this is only a generous backstop against a runaway
 * allocation outrunning the RSS poll; the RSS watchdog is the real limit.
 */
export function withAddressSpaceLimit(command: string[], limitMb: number): string[] {
  if (limitMb <= 0 || process.platform === "win32") return command;
  // exec keeps the worker's pid, so kills and /proc reads reach the worker rather than the shell
  const script = 'ulimit -v "$1" || exit 97; shift; exec "$@"';
  return ["/bin/sh", "-c", script, "sh", String(Math.floor(limitMb * 1024)), ...command];
}
