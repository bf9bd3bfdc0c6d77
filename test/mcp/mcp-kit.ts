import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { seedWithDocs } from "../chat/chat-kit.ts";
import type { Engine } from "../helpers/index-drivers.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { freshPgDatabase } from "../helpers/stores.ts";

export const MCP_PATH = "/api/v1/mcp";

/** A real server on port 0 on the given engine (extractive answers), with a deployment trained on the handbook. */
export async function startMcpWorld(engine: Engine, env: Record<string, string> = {}) {
  const dbEnv: Record<string, string> = engine === "postgres" ? { DOCCHAT_DATABASE_URL: await freshPgDatabase() } : {};
  const server = await startTestServer({ DOCCHAT_LLM: "extractive", ...dbEnv, ...env });
  const seeded = await seedWithDocs(server, ["acme-handbook.txt"], { tokens: 100_000 });
  return { server, ...seeded };
}

/** The official SDK client over Streamable HTTP, with the deployment key as its bearer token. */
export async function connectHttp(server: TestServer, apiKey: string, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}${MCP_PATH}`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}`, ...headers } },
  });
  const client = new Client({ name: "docchat-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** A tool result's structured content (fails the test when the call was a tool error). */
export function structured<T = Record<string, unknown>>(r: CallToolResult | Record<string, unknown>): T {
  const res = r as CallToolResult;
  if (res.isError) throw new Error(`tool error: ${JSON.stringify(res.content)}`);
  return res.structuredContent as T;
}

/** A tool error's stable code. */
export function toolErrorCode(r: CallToolResult | Record<string, unknown>): string {
  const res = r as CallToolResult;
  if (!res.isError) throw new Error(`expected a tool error, got ${JSON.stringify(res.structuredContent)}`);
  const first = res.content[0];
  return (JSON.parse(first?.type === "text" ? first.text : "{}") as { error: { code: string } }).error.code;
}
