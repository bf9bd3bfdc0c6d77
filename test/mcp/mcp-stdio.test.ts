/**
 * `docchat mcp --deployment ID` over stdio, driven by the official SDK client launching the real CLI, on both
 * engines: the same tools and citations as over HTTP, the refusal at zero tokens, and every gate refusal (disabled
 * key, unpublished deployment, address outside the allow-list, exhausted balance, rate limit) as a clear MCP error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { STORE_ENGINES, stopSharedCluster } from "../helpers/stores.ts";
import { startMcpWorld, structured, toolErrorCode } from "./mcp-kit.ts";

afterAll(stopSharedCluster);

const MAIN = join(import.meta.dir, "../../src/main.ts");

async function connectStdio(world: Awaited<ReturnType<typeof startMcpWorld>>, env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, "mcp", "--deployment", world.deploymentId, "--data", world.server.dataDir],
    env: { ...(process.env as Record<string, string>), DOCCHAT_EMBEDDER: "none", DOCCHAT_LLM: "extractive", ...env },
    stderr: "pipe",
  });
  const client = new Client({ name: "docchat-stdio-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** The MCP error a refused request got: its code (the HTTP status) and the catalogue code. */
async function refusal(p: Promise<unknown>): Promise<{ code: number; data: string }> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(e instanceof McpError)) throw new Error(`expected an McpError, got ${String(e)}`);
  return { code: e.code, data: (e.data as { code: string }).code };
}

for (const engine of STORE_ENGINES) {
  describe(`MCP over stdio (${engine})`, () => {
    let world: Awaited<ReturnType<typeof startMcpWorld>>;
    let env: Record<string, string>;
    let client: Client;
    beforeAll(async () => {
      world = await startMcpWorld(engine);
      env = world.server.services.config.databaseUrl ? { DOCCHAT_DATABASE_URL: world.server.services.config.databaseUrl } : {};
      client = await connectStdio(world, env);
    }, 60_000);
    afterAll(async () => {
      await client?.close();
      await world?.server.stop();
    });

    test("the tools are listed with schemas, search and ask cite the handbook, and an unanswerable question is refused for free", async () => {
      expect(client.getInstructions()).toContain("Test deployment");
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["ask", "fetch", "search"]);
      const s = structured<{ results: { id: string; citation: { document: string } }[] }>(
        await client.callTool({ name: "search", arguments: { query: "support desk hours" } }),
      );
      expect(s.results[0]?.citation.document).toBe("acme-handbook");
      const f = structured<{ id: string }>(await client.callTool({ name: "fetch", arguments: { id: s.results[0]?.id as string } }));
      expect(f.id).toBe(s.results[0]?.id as string);
      const before = (await world.server.services.repos.accounts.findById(world.accountId))?.tokens as number;
      const a = structured<{ status: string; citations: unknown[]; usage: { total_tokens: number } }>(
        await client.callTool({ name: "ask", arguments: { question: "When is the support desk open?" } }),
      );
      expect(a.status).toBe("answered");
      expect(a.citations.length).toBeGreaterThan(0);
      const after = (await world.server.services.repos.accounts.findById(world.accountId))?.tokens as number;
      expect(before - after).toBe(a.usage.total_tokens);
      const r = structured<{ status: string; usage: { total_tokens: number } }>(
        await client.callTool({ name: "ask", arguments: { question: "What is the capital of Mongolia?" } }),
      );
      expect([r.status, r.usage.total_tokens]).toEqual(["refused", 0]);
      expect((await world.server.services.repos.accounts.findById(world.accountId))?.tokens).toBe(after);
    });

    test("a disabled key, an unpublished deployment and an address outside the allow-list are refused request by request", async () => {
      const { repos } = world.server.services;
      await repos.keys.setDisabled(world.deploymentId, true);
      expect(await refusal(client.listTools())).toEqual({ code: 401, data: "bad_key" });
      await repos.keys.setDisabled(world.deploymentId, false);
      await repos.deployments.update(world.deploymentId, { published: false });
      expect(await refusal(client.callTool({ name: "search", arguments: { query: "refund" } }))).toEqual({
        code: 401,
        data: "not_published",
      });
      await repos.deployments.update(world.deploymentId, { published: true, ipAllow: ["203.0.113.0/24"] });
      expect(await refusal(client.listTools())).toEqual({ code: 403, data: "ip_restricted" });
      await repos.deployments.update(world.deploymentId, { ipAllow: ["127.0.0.1/32"] });
      expect((await client.listTools()).tools.length).toBe(3);
      await repos.deployments.update(world.deploymentId, { ipAllow: [] });
    });

    test("an exhausted balance makes ask a no_tokens tool error", async () => {
      const tokens = (await world.server.services.repos.accounts.findById(world.accountId))?.tokens as number;
      await world.server.services.repos.accounts.debit(world.accountId, tokens, null);
      expect(toolErrorCode(await client.callTool({ name: "ask", arguments: { question: "Can annual plans be refunded?" } }))).toBe(
        "no_tokens",
      );
    });

    test("past the rate limit a request is refused with 429 rate_limited and when to retry", async () => {
      let last: McpError | null = null;
      for (let i = 0; i < 61 && !last; i++)
        last = await client.ping().then(
          () => null,
          (e: unknown) => (e instanceof McpError ? e : null),
        );
      expect(last?.code).toBe(429);
      const data = last?.data as { code: string; retry_after: number };
      expect(data.code).toBe("rate_limited");
      expect(data.retry_after).toBeGreaterThan(0);
    });
  });
}
