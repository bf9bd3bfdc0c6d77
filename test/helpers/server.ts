import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor, createServices, type Services } from "../../src/app.ts";
import { createServer } from "../../src/server/create-server.ts";

export interface TestServer {
  url: string;
  services: Services;
  dataDir: string;
  /** creates an owner, a published deployment and returns its key */
  seed(opts?: {
    tokens?: number;
    published?: boolean;
    kind?: "docs" | "private_gpt";
    email?: string;
  }): Promise<{ deploymentId: string; apiKey: string; accountId: number; email: string }>;
  stop(): Promise<void>;
}

export function tempDir(prefix = "docchat-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

let seq = 0;

/** A real server on port 0 over a real SQLite file in a temp dir. */
export async function startTestServer(env: Record<string, string> = {}, opts: { dataDir?: string } = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? tempDir();
  const services = await createServices(configFor(dataDir, { DOCCHAT_EMBEDDER: "none", ...env }));
  await services.startWorkers();
  const app = createServer(services).listen({ port: 0, hostname: "127.0.0.1" });
  const url = `http://127.0.0.1:${app.server?.port}`;
  return {
    url,
    services,
    dataDir,
    async seed(o = {}) {
      const email = o.email ?? `owner${++seq}-${Date.now()}@example.com`;
      const account = await services.accounts.create({ email, tokens: o.tokens ?? 100_000 });
      const { deployment, apiKey } = await services.deployments.create({
        accountId: account.id,
        name: "Test deployment",
        kind: o.kind ?? "docs",
        published: o.published ?? true,
      });
      return { deploymentId: deployment.id, apiKey, accountId: account.id, email };
    },
    async stop() {
      await app.stop(true);
      await services.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs the real CLI in a child process. */
export async function runCliProcess(
  args: string[],
  env: Record<string, string> = {},
  opts: { cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../src/main.ts"), ...args], {
    env: { ...process.env, ...env },
    cwd: opts.cwd,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Runs the real CLI with --json (and --data when given); fails with its stderr unless it exits 0; returns what it printed. */
export async function cliJson(
  args: string[],
  opts: { data?: string; env?: Record<string, string> } = {},
): Promise<Record<string, unknown>> {
  const r = await runCliProcess([...args, ...(opts.data ? ["--data", opts.data] : []), "--json"], opts.env);
  if (r.code !== 0) throw new Error(`docchat ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

/** An owner and a published deployment created through the real CLI in `data`; returns the deployment's key. */
export async function seedKeyWithCli(data: string): Promise<string> {
  const email = `owner-${Date.now()}@example.com`;
  const a = await runCliProcess(["account", "create", "--email", email, "--data", data, "--json"]);
  if (a.code !== 0) throw new Error(a.stderr);
  const d = await runCliProcess(["deployment", "create", "--account", email, "--name", "Docs", "--publish", "--data", data, "--json"]);
  if (d.code !== 0) throw new Error(d.stderr);
  return (JSON.parse(d.stdout) as { api_key: string }).api_key;
}
