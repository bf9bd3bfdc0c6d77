import type { Subprocess } from "bun";

export interface ServeProcess {
  url: string;
  pid: number;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** stderr so far (JSON log lines) */
  log(): string;
  /** sends the signal and resolves with the exit code */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/**
 * Starts `docchat serve --port 0` as a real child process (from source or a compiled binary: `command` is the
 * part before "serve") and resolves once it logged its address and /health answers 200.
 */
export async function startServeProcess(opts: {
  command: string[];
  dataDir: string;
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}): Promise<ServeProcess> {
  const proc = Bun.spawn([...opts.command, "serve", "--port", "0", "--host", "127.0.0.1", "--data", opts.dataDir], {
    cwd: opts.cwd,
    // info level: the "docchat listening" line carries the address.
    env: { ...process.env, ...opts.env, DOCCHAT_LOG_LEVEL: "info" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  const decoder = new TextDecoder();
  const pump = (async () => {
    for await (const chunk of proc.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  void new Response(proc.stdout).text();
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let url: string | null = null;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`serve exited with ${proc.exitCode} before listening:\n${stderr}`);
    const m = /"msg":"docchat listening","url":"(http:\/\/[^"]+)"/.exec(stderr);
    if (m?.[1]) {
      url = m[1];
      const ok = await fetch(`${url}/health`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) break;
    }
    await Bun.sleep(25);
  }
  if (!url) {
    proc.kill("SIGKILL");
    throw new Error(`serve did not start within ${opts.timeoutMs ?? 30_000} ms:\n${stderr}`);
  }
  return {
    url,
    pid: proc.pid,
    proc,
    log: () => stderr,
    async stop(signal = "SIGTERM") {
      if (proc.exitCode === null) proc.kill(signal);
      const code = await proc.exited;
      await pump;
      return code;
    },
  };
}
