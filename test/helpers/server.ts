import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor, createServices, type Services } from "../../src/app.ts";
import type { Logger } from "../../src/log.ts";
import { createServer } from "../../src/server/create-server.ts";
import type { Engine } from "./index-drivers.ts";
import { freshPgDatabase } from "./stores.ts";

export interface TestServer {
  url: string;
  engine: Engine;
  /** what a CLI process needs to reach this server's store: its data dir, and its database on PostgreSQL */
  cliEnv: Record<string, string>;
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

/** The product's services (no server) over a temp data dir, on either engine; `close` also removes the dir. */
export async function startTestServices(
  env: Record<string, string> = {},
  opts: { engine?: Engine; log?: Logger } = {},
): Promise<{ services: Services; dataDir: string; close(): Promise<void> }> {
  const dataDir = tempDir();
  const database: Record<string, string> = opts.engine === "postgres" ? { DOCCHAT_DATABASE_URL: await freshPgDatabase() } : {};
  const services = await createServices(configFor(dataDir, { DOCCHAT_EMBEDDER: "none", ...database, ...env }), { log: opts.log });
  return {
    services,
    dataDir,
    async close() {
      await services.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A real server on port 0 over a real SQLite file in a temp dir, or (engine "postgres") over a fresh database of the
 * test file's throwaway cluster (call inside describeEngines or describeStores, which stop the cluster afterwards).
 */
export async function startTestServer(
  env: Record<string, string> = {},
  opts: { dataDir?: string; engine?: Engine } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? tempDir();
  const engine = opts.engine ?? "sqlite";
  const database: Record<string, string> = engine === "postgres" ? { DOCCHAT_DATABASE_URL: await freshPgDatabase() } : {};
  const services = await createServices(configFor(dataDir, { DOCCHAT_EMBEDDER: "none", ...database, ...env }));
  await services.startWorkers();
  const app = createServer(services).listen({ port: 0, hostname: "127.0.0.1" });
  const url = `http://127.0.0.1:${app.server?.port}`;
  return {
    url,
    engine,
    cliEnv: { DOCCHAT_DATA: dataDir, ...database },
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

/**
 * A test server for the enclosing describe block, on `engine`: started before its tests (the object is filled
 * then), stopped after them.
 */
export function useTestServer(engine: Engine, env: Record<string, string> = {}): TestServer {
  const server = {} as TestServer;
  beforeAll(async () => {
    Object.assign(server, await startTestServer(env, { engine }));
  }, 60_000);
  afterAll(() => server.stop());
  return server;
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
