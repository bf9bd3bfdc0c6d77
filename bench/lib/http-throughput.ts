/** Gated /api/v1/models against a bare Elysia hello-world, in the same run, with the same wrk settings. */
import { readFileSync } from "node:fs";
import { type BareServer, type DocchatServer, startBareElysia } from "./http-servers.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

/** A process's CPU time so far (user + system), in µs: /proc/<pid>/stat fields 14 and 15, in clock ticks of 10 ms. */
function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** wrk against `url`, with the server's CPU time per answered request (what the load of other jobs barely moves). */
async function runMeasured(pid: number, opts: Parameters<typeof runWrk>[0]): Promise<WrkResult & { cpuMicrosPerRequest: number }> {
  const before = cpuMicros(pid);
  const r = await runWrk(opts);
  return { ...r, cpuMicrosPerRequest: (cpuMicros(pid) - before) / Math.max(1, r.requests) };
}

export interface ThroughputOptions {
  seconds: number;
  connections: number;
  threads: number;
  warmupSeconds: number;
}

export interface ThroughputResult {
  bare: WrkResult & { cpuMicrosPerRequest: number };
  gated: WrkResult & { cpuMicrosPerRequest: number };
  ratio: number;
  /** bare CPU per request / gated CPU per request: the throughput ratio a machine with nothing else running would show */
  cpuRatio: number;
}

export function throughputOptions(values: Record<string, string | boolean | undefined>): ThroughputOptions {
  const n = (k: string, d: number) => (typeof values[k] === "string" ? Number(values[k]) : d);
  return { seconds: n("duration", 10), connections: n("connections", 64), threads: n("threads", 1), warmupSeconds: n("warmup", 2) };
}

export async function measureThroughput(
  docchat: DocchatServer,
  opts: ThroughputOptions,
  log = (s: string) => process.stderr.write(`${s}\n`),
): Promise<ThroughputResult> {
  let bare: BareServer | undefined;
  try {
    bare = await startBareElysia();
    const gatedUrl = `${docchat.url}/api/v1/models`;
    const headers = { authorization: `Bearer ${docchat.apiKey}` };
    const base = { seconds: opts.seconds, connections: opts.connections, threads: opts.threads };
    log(`warming up (${opts.warmupSeconds}s each) …`);
    await runWrk({ ...base, url: bare.url, seconds: opts.warmupSeconds });
    await runWrk({ ...base, url: gatedUrl, headers, seconds: opts.warmupSeconds });
    log(`bare Elysia ${bare.url} for ${opts.seconds}s …`);
    const bareResult = await runMeasured(bare.pid, { ...base, url: bare.url });
    log(`gated ${gatedUrl} for ${opts.seconds}s …`);
    const gated = await runMeasured(docchat.serve.pid, { ...base, url: gatedUrl, headers });
    return {
      bare: bareResult,
      gated,
      ratio: gated.requestsPerSec / bareResult.requestsPerSec,
      cpuRatio: bareResult.cpuMicrosPerRequest / gated.cpuMicrosPerRequest,
    };
  } finally {
    await bare?.stop();
  }
}

const f = (n: number) => Math.round(n).toLocaleString("en-US");

export function throughputTable(r: ThroughputResult, gatedLabel: string): string {
  return [
    "| Target | req/s | p50 latency | p99 latency | requests | server CPU per request |",
    "|---|---:|---:|---:|---:|---:|",
    `| bare Elysia hello-world (\`GET /\`) | ${f(r.bare.requestsPerSec)} | ${r.bare.latencyP50Ms.toFixed(2)} ms | ${r.bare.latencyP99Ms.toFixed(2)} ms | ${f(r.bare.requests)} | ${r.bare.cpuMicrosPerRequest.toFixed(1)} µs |`,
    `| ${gatedLabel} | ${f(r.gated.requestsPerSec)} | ${r.gated.latencyP50Ms.toFixed(2)} ms | ${r.gated.latencyP99Ms.toFixed(2)} ms | ${f(r.gated.requests)} | ${r.gated.cpuMicrosPerRequest.toFixed(1)} µs |`,
    "",
    `Gated / bare: **${(r.ratio * 100).toFixed(0)} %** (aim: at least 50 %); by server CPU per request (bare / gated): ${(r.cpuRatio * 100).toFixed(0)} %.`,
  ].join("\n");
}
