/** Gated /api/v1/models against a bare Elysia hello-world, in the same run, with the same wrk settings. */
import { type BareServer, type DocchatServer, startBareElysia } from "./http-servers.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

export interface ThroughputOptions {
  seconds: number;
  connections: number;
  threads: number;
  warmupSeconds: number;
}

export interface ThroughputResult {
  bare: WrkResult;
  gated: WrkResult;
  ratio: number;
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
    const bareResult = await runWrk({ ...base, url: bare.url });
    log(`gated ${gatedUrl} for ${opts.seconds}s …`);
    const gated = await runWrk({ ...base, url: gatedUrl, headers });
    return { bare: bareResult, gated, ratio: gated.requestsPerSec / bareResult.requestsPerSec };
  } finally {
    await bare?.stop();
  }
}

const f = (n: number) => Math.round(n).toLocaleString("en-US");

export function throughputTable(r: ThroughputResult, gatedLabel: string): string {
  return [
    "| Target | req/s | p50 latency | p99 latency | requests |",
    "|---|---:|---:|---:|---:|",
    `| bare Elysia hello-world (\`GET /\`) | ${f(r.bare.requestsPerSec)} | ${r.bare.latencyP50Ms.toFixed(2)} ms | ${r.bare.latencyP99Ms.toFixed(2)} ms | ${f(r.bare.requests)} |`,
    `| ${gatedLabel} | ${f(r.gated.requestsPerSec)} | ${r.gated.latencyP50Ms.toFixed(2)} ms | ${r.gated.latencyP99Ms.toFixed(2)} ms | ${f(r.gated.requests)} |`,
    "",
    `Gated / bare: **${(r.ratio * 100).toFixed(0)} %** (aim: at least 50 %).`,
  ].join("\n");
}
