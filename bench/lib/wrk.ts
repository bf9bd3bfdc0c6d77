/**
 * Runs wrk against 127.0.0.1 and parses its report. Finds wrk on PATH; if it is missing and apt-get is usable
 * (root on Debian/Ubuntu), installs it; otherwise fails with the command to run.
 */
export interface WrkResult {
  url: string;
  requestsPerSec: number;
  requests: number;
  non2xx: number;
  socketErrors: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  seconds: number;
  command: string;
}

async function run(cmd: string[]): Promise<{ code: number; out: string }> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out: out + err };
}

export async function locateWrk(): Promise<string> {
  const found = Bun.which("wrk");
  if (found) return found;
  const isRoot = process.getuid?.() === 0;
  if (isRoot && Bun.which("apt-get")) {
    process.stderr.write("wrk not found; installing it with apt-get …\n");
    await run(["apt-get", "update", "-qq"]);
    const r = await run(["apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y", "-qq", "wrk"]);
    const again = Bun.which("wrk");
    if (again) return again;
    throw new Error(`could not install wrk with apt-get:\n${r.out.slice(-1000)}`);
  }
  throw new Error(
    "wrk is required for this benchmark: install it (apt-get install wrk, brew install wrk, or build from https://github.com/wg/wrk) and run again",
  );
}

function ms(value: string, unit: string): number {
  const n = Number(value);
  return unit === "us" ? n / 1000 : unit === "s" ? n * 1000 : unit === "m" ? n * 60_000 : n;
}

export function parseWrk(out: string): Omit<WrkResult, "url" | "seconds" | "command"> {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const total = /(\d+) requests in/.exec(out);
  if (!rps || !total) throw new Error(`could not parse wrk output:\n${out}`);
  const p = (q: string) => {
    const m = new RegExp(`\\s${q}%\\s+([\\d.]+)(us|ms|s|m)`).exec(out);
    return m ? ms(m[1] as string, m[2] as string) : Number.NaN;
  };
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const errs = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = errs ? errs.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  return { requestsPerSec: Number(rps[1]), requests: Number(total[1]), non2xx, socketErrors, latencyP50Ms: p("50"), latencyP99Ms: p("99") };
}

/** One bounded wrk run; `headers` are sent with every request. Fails if any answer was not 2xx. */
export async function runWrk(opts: {
  url: string;
  seconds: number;
  connections: number;
  threads: number;
  headers?: Record<string, string>;
}): Promise<WrkResult> {
  const wrk = await locateWrk();
  if (!/^http:\/\/127\.0\.0\.1:/.test(opts.url)) throw new Error(`benchmarks only target 127.0.0.1 (got ${opts.url})`);
  const headerArgs = Object.entries(opts.headers ?? {}).flatMap(([k, v]) => ["-H", `${k}: ${v}`]);
  const cmd = [wrk, `-t${opts.threads}`, `-c${opts.connections}`, `-d${opts.seconds}s`, "--latency", ...headerArgs, opts.url];
  const r = await run(cmd);
  if (r.code !== 0) throw new Error(`wrk failed (${r.code}):\n${r.out}`);
  const parsed = parseWrk(r.out);
  if (parsed.non2xx > 0)
    throw new Error(`${parsed.non2xx} of ${parsed.requests} answers from ${opts.url} were not 2xx (rate limit not raised?)`);
  const shown = cmd
    .map((a) => (a.startsWith("authorization:") ? "authorization: Bearer $KEY" : a))
    .map((a) => (a.includes(" ") ? `'${a}'` : a));
  return { url: opts.url, seconds: opts.seconds, command: ["wrk", ...shown.slice(1)].join(" "), ...parsed };
}
