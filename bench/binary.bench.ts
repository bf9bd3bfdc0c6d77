/**
 * The single executable: size, time from exec to the first `/health` 200 (median of N, on a fresh and on an
 * existing data dir), idle RSS after start, and the HTTP throughput figures measured on the binary.
 *
 *   bun bench/binary.bench.ts [--no-build] [--runs 10] [--duration 10] [--connections 64] [--threads 1] [--write]
 *                             [--startup-only] [--before PATH]
 *
 * The binary is copied alone into a temp dir and run from there (no node_modules near it). A compiled Bun
 * hello-world (Bun.serve answering /health, built with `bun build --compile` in the same run) is started the same way,
 * its runs interleaved with docchat's, so the start-up ratio compares like with like on a busy machine; so is a compiled
 * hello-world that answers /health through Elysia (the framework's own share of the start). Besides the clock, the
 * CPU time the process had used when /health first answered (all its threads, Linux) is reported: on a busy machine
 * the clock mostly measures the wait for a core. --before PATH times another docchat binary (say, one built from main
 * with `bun scripts/build-binary.ts --outdir DIR`) in the same interleaved runs.
 * --startup-only skips the throughput run. --write replaces the "Single binary" section of BENCHMARKS.md.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildBinary } from "../scripts/build-binary.ts";
import { freePort } from "../test/helpers/free-port.ts";
import { reportSection } from "./lib/benchmarks-md.ts";
import { REPO, startDocchat } from "./lib/http-servers.ts";
import { measureThroughput, throughputOptions, throughputTable } from "./lib/http-throughput.ts";
import { describeMachine } from "./lib/machine-info.ts";
import { percentile } from "./lib/percentiles.ts";

const startLoad = loadavg();
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    "no-build": { type: "boolean" },
    runs: { type: "string" },
    duration: { type: "string" },
    connections: { type: "string" },
    threads: { type: "string" },
    warmup: { type: "string" },
    write: { type: "boolean" },
    "startup-only": { type: "boolean" },
    before: { type: "string" },
  },
});
const runs = Number(values.runs ?? 10);
const log = (s: string) => process.stderr.write(`${s}\n`);
const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;

function rssKb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

/** The hello-world docchat's start-up is compared with: Bun.serve answering /health, nothing else. */
const HELLO = `const port = Number(process.argv[process.argv.indexOf("--port") + 1]);
Bun.serve({ port, hostname: "127.0.0.1", fetch: () => Response.json({ status: "ok" }) });
`;

/** The same through Elysia: what the framework alone adds to a start. */
const HELLO_ELYSIA = `import { Elysia } from ${JSON.stringify(join(REPO, "node_modules/elysia/dist/index.mjs"))};
const port = Number(process.argv[process.argv.indexOf("--port") + 1]);
new Elysia().get("/health", () => ({ status: "ok" })).listen({ port, hostname: "127.0.0.1" });
`;

/** CPU time (ms) all of a process's threads have used so far (Linux: schedstat counts nanoseconds on a core). */
function cpuMs(pid: number): number {
  if (!existsSync(`/proc/${pid}/task`)) return Number.NaN;
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
  return ns / 1e6;
}

/** Spawns `serve` and resolves when /health first answers 200: [ms from exec, CPU ms used by then, the process]. */
async function timeToHealth(bin: string, cwd: string, dataDir: string, env: Record<string, string>) {
  const port = await freePort();
  const started = performance.now();
  const proc = Bun.spawn([bin, "serve", "--port", String(port), "--data", dataDir, "--host", "127.0.0.1"], {
    cwd,
    env,
    stdout: "ignore",
    stderr: "pipe",
  });
  const url = `http://127.0.0.1:${port}/health`;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`serve exited ${proc.exitCode}: ${await new Response(proc.stderr).text()}`);
    const ok = await fetch(url).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return { ms: performance.now() - started, cpu: cpuMs(proc.pid), proc };
    if (performance.now() - started > 30_000) throw new Error("serve did not answer /health within 30 s");
    await Bun.sleep(2);
  }
}

async function stop(proc: Bun.Subprocess): Promise<void> {
  proc.kill("SIGTERM");
  const code = await proc.exited;
  if (code !== 0) throw new Error(`serve exited ${code} after SIGTERM`);
}

const work = mkdtempSync(join(tmpdir(), "docchat-binbench-"));
try {
  const built = values["no-build"] ? null : await buildBinary({ log });
  const source = join(REPO, "dist", "docchat");
  const bin = join(work, "docchat");
  copyFileSync(source, bin);
  const size = Bun.file(bin).size;
  const env: Record<string, string> = { PATH: "/usr/bin:/bin", HOME: work, LANG: "C.UTF-8", DOCCHAT_LOG_LEVEL: "warn" };

  for (const [name, source] of [
    ["hello", HELLO],
    ["hello-elysia", HELLO_ELYSIA],
  ]) {
    await Bun.write(join(work, `${name}.ts`), source as string);
    const b = Bun.spawnSync([process.execPath, "build", "--compile", join(work, `${name}.ts`), "--outfile", join(work, name as string)], {
      stdout: "ignore",
      stderr: "pipe",
    });
    if (b.exitCode !== 0) throw new Error(`${name} build failed: ${b.stderr.toString()}`);
  }

  // Every subject once per round, in this order, so that all of them meet the same moments of a busy machine.
  const before = values.before ? join(work, "docchat-before") : null;
  const existingDir = join(work, "data-existing");
  if (before) copyFileSync(values.before as string, before);
  const subjects = [
    { name: "hello", bin: join(work, "hello"), data: "none" },
    { name: "elysia", bin: join(work, "hello-elysia"), data: "none" },
    { name: "fresh", bin, data: "fresh" },
    { name: "existing", bin, data: existingDir },
    ...(before
      ? [
          { name: "before-fresh", bin: before, data: "fresh" },
          { name: "before-existing", bin: before, data: join(work, "data-existing-before") },
        ]
      : []),
  ];
  const ms: Record<string, number[]> = Object.fromEntries(subjects.map((s) => [s.name, []]));
  const cpu: Record<string, number[]> = Object.fromEntries(subjects.map((s) => [s.name, []]));
  for (let i = 0; i < runs; i++) {
    for (const s of subjects) {
      const dir = s.data === "fresh" ? mkdtempSync(join(work, "fresh-")) : s.data === "none" ? work : s.data;
      const r = await timeToHealth(s.bin, work, dir, env);
      ms[s.name]?.push(r.ms);
      cpu[s.name]?.push(r.cpu);
      if (s.data === "none") {
        r.proc.kill("SIGTERM");
        await r.proc.exited;
      } else await stop(r.proc);
      if (s.data === "fresh") rmSync(dir, { recursive: true, force: true });
    }
  }
  const [hello, fresh, existing] = [ms.hello ?? [], ms.fresh ?? [], ms.existing ?? []];
  const ratio = (xs: number[]) => (percentile(xs, 50) / percentile(hello, 50)).toFixed(1);
  log(
    `startup: hello-world median ${percentile(hello, 50).toFixed(0)} ms; docchat fresh ${percentile(fresh, 50).toFixed(0)} ms (${ratio(fresh)}x), existing ${percentile(existing, 50).toFixed(0)} ms (${ratio(existing)}x)`,
  );
  if (values["startup-only"]) {
    const q1 = (xs: number[]) => `${percentile(xs, 50).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
    const c1 = (xs: number[]) => `${percentile(xs, 50).toFixed(1)} ms`;
    const cr = (xs: number[]) => (percentile(xs, 50) / percentile(cpu.hello ?? [], 50)).toFixed(1);
    const row = (label: string, name: string) =>
      `| ${label} | ${q1(ms[name] ?? [])} | ${ratio(ms[name] ?? [])} | ${c1(cpu[name] ?? [])} | ${cr(cpu[name] ?? [])} |`;
    const body = `Command: \`bun bench/binary.bench.ts --runs ${runs} --startup-only${before ? " --before PATH" : ""}\` (builds with \`bun run build\`; runs interleaved:
${subjects.map((s) => s.name).join(", ")}, ${runs} times; exec → first \`/health\` 200, polled every 2 ms; CPU: what all the process's
threads had used when /health first answered, from /proc/<pid>/task/*/schedstat).

Machine: ${describeMachine()}; load average ${startLoad.map((l) => l.toFixed(1)).join(" / ")} (1/5/15 min) when the run started.

| Started | exec → first \`/health\` 200 (median of ${runs}) | × hello-world | CPU used by then (median) | × hello-world |
|---|---|---|---|---|
${[
  row("compiled Bun hello-world (`Bun.serve`, nothing else)", "hello"),
  row("compiled Elysia hello-world (one route)", "elysia"),
  row("`dist/docchat serve`, fresh data dir", "fresh"),
  row("`dist/docchat serve`, existing data dir", "existing"),
  ...(before
    ? [row("before (`--before` binary), fresh data dir", "before-fresh"), row("before (`--before` binary), existing data dir", "before-existing")]
    : []),
].join("\n")}`;
    await reportSection("Single binary: start-up against a hello-world", body, values.write);
    rmSync(work, { recursive: true, force: true });
    process.exit(0);
  }

  const idle = await timeToHealth(bin, work, existingDir, env);
  await Bun.sleep(2000);
  const idleRss = rssKb(idle.proc.pid);
  await stop(idle.proc);

  const opts = throughputOptions(values);
  const docchat = await startDocchat([bin], { cwd: work, env });
  const r = await measureThroughput(docchat, opts, log);
  const afterLoad = rssKb(docchat.serve.pid);
  const code = await docchat.stop();
  if (code !== 0) throw new Error(`docchat serve exited ${code} after SIGTERM`);

  const q = (xs: number[]) => `${percentile(xs, 50).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
  const body = `Command: \`bun bench/binary.bench.ts --runs ${runs} --duration ${opts.seconds} --connections ${opts.connections} --threads ${opts.threads}\`
(builds with \`bun run build\`, copies \`dist/docchat\` alone into a temp dir and runs it from there, default configuration:
keyword-only retrieval, extractive answers, no local model loaded).

Machine: ${describeMachine()}; load average ${startLoad.map((l) => l.toFixed(1)).join(" / ")} (1/5/15 min) when the run started.

| Figure | Value | Aim |
|---|---|---|
| \`dist/docchat\` size (linux-x64) | ${mib(size)} | |
| \`dist/lib/\` (node-llama-cpp, only for local GGUF models) | ${built ? mib(built.libBytes) : "not rebuilt"} | |
| exec → first \`/health\` 200 of a compiled Bun hello-world, same run (median of ${runs}) | ${q(hello)} | |
| exec → first \`/health\` 200, fresh data dir (median of ${runs}) | ${q(fresh)}, ${ratio(fresh)}× hello-world | ≤ 2× |
| exec → first \`/health\` 200, existing data dir (median of ${runs}) | ${q(existing)}, ${ratio(existing)}× hello-world | ≤ 2× |
| idle RSS 2 s after start | ${(idleRss.rss / 1024).toFixed(0)} MiB | < 250 MiB |
| RSS after the throughput run (peak) | ${(afterLoad.rss / 1024).toFixed(0)} MiB (${(afterLoad.hwm / 1024).toFixed(0)} MiB) | |

Throughput on the binary (wrk \`-t${opts.threads} -c${opts.connections} -d${opts.seconds}s\`, same method as "HTTP throughput (from source)";
the bare Elysia baseline runs from source in the same run):

${throughputTable(r, "`dist/docchat serve`: `GET /api/v1/models` with a valid key")}`;
  await reportSection("Single binary", body, values.write);
} catch (e) {
  console.error(`benchmark failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
