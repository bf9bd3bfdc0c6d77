import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";

const PAGE_SIZE = 4096;

/**
 * Polls a child's resident set size (Linux /proc) and calls `onExceeded` once it passes the limit.
 * Elsewhere it does nothing; the address-space backstop and the timeout still apply.
 */
export function watchResidentMemory(pid: number, limitBytes: number, onExceeded: () => void, intervalMs = 100): () => void {
  if (process.platform !== "linux" || limitBytes <= 0) return () => {};
  let stopped = false;
  const timer = setInterval(async () => {
    const rss = await readResidentBytes(pid);
    if (!stopped && rss !== undefined && rss > limitBytes) {
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
