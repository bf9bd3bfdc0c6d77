/** The facts a benchmark figure needs next to it to be comparable: cores, CPU model, memory, runtime, date. */
import { cpus, loadavg, totalmem } from "node:os";

export function describeMachine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  const gib = (totalmem() / 2 ** 30).toFixed(0);
  const date = new Date().toISOString().slice(0, 10);
  return `${cpus().length} cores (nproc), ${cpu}, ${gib} GiB RAM, Bun ${Bun.version}, ${process.platform}/${process.arch}, ${date}`;
}

/** Peak resident set size of this process so far, in MB (getrusage ru_maxrss). */
export const peakRssMb = (): number => process.resourceUsage().maxRSS / 1024;

/** 1-minute load average: on a shared 2-core machine, throughput figures mean little without it. */
export const loadAverage = (): number => loadavg()[0] ?? 0;
