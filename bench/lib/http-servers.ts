/** Servers for the HTTP benchmarks, each a real child process on 127.0.0.1. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type ServeProcess, startServeProcess } from "../../test/helpers/serve-process.ts";

export const REPO = resolve(import.meta.dir, "../..");

export interface BareServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startBareElysia(): Promise<BareServer> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "bare-elysia.server.ts")], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error("bare Elysia server exited before printing its port");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return {
    url: `http://127.0.0.1:${text.trim()}/`,
    pid: proc.pid,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

export interface DocchatServer {
  url: string;
  apiKey: string;
  serve: ServeProcess;
  dataDir: string;
  stop(): Promise<number>;
}

/**
 * `docchat serve` (from source: [bun, src/main.ts]; or a compiled binary: [path]) on a fresh data dir with one
 * published deployment. The per-key rate limits are scaled up so the benchmark measures the gate, not 429s.
 */
export async function startDocchat(command: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<DocchatServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "docchat-bench-"));
  const env = { DOCCHAT_RATE_LIMIT_SCALE: "100000", DOCCHAT_LOG_LEVEL: "warn", ...opts.env };
  const cli = async (args: string[]) => {
    const proc = Bun.spawn([...command, ...args, "--data", dataDir, "--json"], {
      cwd: opts.cwd,
      env: { ...process.env, ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0) throw new Error(`docchat ${args.join(" ")}: ${err}`);
    return JSON.parse(out) as Record<string, string>;
  };
  await cli(["account", "create", "--email", "bench@example.com", "--tokens", "1000000"]);
  const dep = await cli(["deployment", "create", "--account", "bench@example.com", "--name", "Bench", "--publish"]);
  const serve = await startServeProcess({ command, dataDir, cwd: opts.cwd, env });
  return {
    url: serve.url,
    apiKey: String(dep.api_key),
    serve,
    dataDir,
    async stop() {
      const code = await serve.stop("SIGTERM");
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
