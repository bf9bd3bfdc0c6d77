/**
 * What Prometheus metrics cost: the gated `GET /api/v1/models` with metrics off (the default) and on
 * (DOCCHAT_METRICS_TOKEN set: per-request counter and latency histogram), alternating runs in the same session, plus
 * the time and size of one scrape after the load. Real `docchat serve` processes on 127.0.0.1, driven by wrk.
 *
 *   bun bench/metrics.bench.ts [--duration 5] [--rounds 2] [--connections 64] [--write]
 *
 * --write replaces the "Metrics overhead" section of BENCHMARKS.md.
 */

import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { reportSection } from "./lib/benchmarks-md.ts";
import { REPO, startDocchat } from "./lib/http-servers.ts";
import { describeMachine } from "./lib/machine-info.ts";
import { runWrk, type WrkResult } from "./lib/wrk.ts";

const TOKEN = "bench-metrics-token-000000";
const startLoad = loadavg();
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { duration: { type: "string" }, rounds: { type: "string" }, connections: { type: "string" }, write: { type: "boolean" } },
});
const seconds = Number(values.duration ?? 5);
const rounds = Number(values.rounds ?? 2);
const connections = Number(values.connections ?? 64);
const command = [process.execPath, join(REPO, "src/main.ts")];
const off = await startDocchat(command);
const on = await startDocchat(command, { env: { DOCCHAT_METRICS_TOKEN: TOKEN } });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
try {
  const run = (s: typeof off, secs = seconds) =>
    runWrk({ url: `${s.url}/api/v1/models`, headers: { authorization: `Bearer ${s.apiKey}` }, seconds: secs, connections, threads: 1 });
  await run(off, 2);
  await run(on, 2);
  const results: { off: WrkResult[]; on: WrkResult[] } = { off: [], on: [] };
  for (let i = 0; i < rounds; i++) {
    results.off.push(await run(off));
    results.on.push(await run(on));
  }
  for (const r of [...results.off, ...results.on])
    if (r.non2xx > 0 || r.socketErrors > 0) throw new Error(`non-2xx answers or socket errors: ${r.command}`);
  const t0 = performance.now();
  const scrape = await fetch(`${on.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await scrape.text();
  const scrapeMs = performance.now() - t0;
  const rps = { off: median(results.off.map((r) => r.requestsPerSec)), on: median(results.on.map((r) => r.requestsPerSec)) };
  const row = (label: string, rs: WrkResult[]) =>
    `| ${label} | ${rs.map((r) => Math.round(r.requestsPerSec).toLocaleString("en-US")).join(" / ")} | ${median(rs.map((r) => r.latencyP50Ms)).toFixed(2)} ms | ${median(rs.map((r) => r.latencyP99Ms)).toFixed(2)} ms |`;
  const body = `Command: \`bun bench/metrics.bench.ts --duration ${seconds} --rounds ${rounds} --connections ${connections}\`
(wrk \`-t1 -c${connections} -d${seconds}s\` on \`GET /api/v1/models\` with a valid key, alternating metrics off / on, ${rounds} rounds after a 2 s warm-up of each;
two \`docchat serve\` processes from source share the machine with wrk).

Machine: ${describeMachine()}; load average ${startLoad.map((l) => l.toFixed(1)).join(" / ")} (1/5/15 min) when the run started.

| Metrics | req/s (each round) | p50 latency (median) | p99 latency (median) |
|---|---:|---:|---:|
${row("off (default)", results.off)}
${row("on (`DOCCHAT_METRICS_TOKEN` set)", results.on)}

On / off (median req/s): **${((rps.on / rps.off) * 100).toFixed(0)} %**. One scrape after the load: HTTP ${scrape.status},
${(text.length / 1024).toFixed(1)} KiB, ${scrapeMs.toFixed(1)} ms.`;
  await reportSection("Metrics overhead", body, values.write);
} finally {
  await off.stop().catch(() => 0);
  await on.stop().catch(() => 0);
}
