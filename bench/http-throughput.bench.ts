/**
 * Throughput of the gated `GET /api/v1/models` (key lookup, rate limiter, IP gate, error/header plumbing) against
 * a bare Elysia hello-world in the same run. Both are real processes on 127.0.0.1, driven by wrk.
 *
 *   bun bench/http-throughput.bench.ts [--duration 10] [--connections 64] [--threads 1] [--write]
 *
 * --write replaces the "HTTP throughput (from source)" section of BENCHMARKS.md.
 */

import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { reportSection } from "./lib/benchmarks-md.ts";
import { REPO, startDocchat } from "./lib/http-servers.ts";
import { measureThroughput, throughputOptions, throughputTable } from "./lib/http-throughput.ts";
import { describeMachine } from "./lib/machine-info.ts";

const startLoad = loadavg();
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    duration: { type: "string" },
    connections: { type: "string" },
    threads: { type: "string" },
    warmup: { type: "string" },
    write: { type: "boolean" },
  },
});
const opts = throughputOptions(values);
const docchat = await startDocchat([process.execPath, join(REPO, "src/main.ts")]);
let table: string;
try {
  const r = await measureThroughput(docchat, opts);
  table = throughputTable(r, "docchat `GET /api/v1/models` with a valid key (`bun src/main.ts serve`)");
  const code = await docchat.stop();
  if (code !== 0) throw new Error(`docchat serve exited ${code} after SIGTERM`);
  const body = `Command: \`bun bench/http-throughput.bench.ts --duration ${opts.seconds} --connections ${opts.connections} --threads ${opts.threads}\`
(wrk \`-t${opts.threads} -c${opts.connections} -d${opts.seconds}s\` after a ${opts.warmupSeconds} s warm-up of each target; server and wrk share the machine,
\`DOCCHAT_RATE_LIMIT_SCALE=100000\` so the limiter counts but never answers 429; every answer was 2xx).

Machine: ${describeMachine()}; load average ${startLoad.map((l) => l.toFixed(1)).join(" / ")} (1/5/15 min) when the run started.

${table}`;
  await reportSection("HTTP throughput (from source)", body, values.write);
} catch (e) {
  await docchat.stop().catch(() => 0);
  console.error(`benchmark failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
