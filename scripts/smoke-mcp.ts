/**
 * The smoke test's MCP steps (issue 21): the compiled binary's MCP server driven by the official SDK client, over
 * Streamable HTTP on the running server and over stdio from `docchat mcp --deployment ID`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export interface McpSmokeCtx {
  bin: string;
  work: string;
  data: string;
  env: Record<string, string>;
  server?: { url: string };
  apiKey: string;
  deploymentId: string;
}

type Check = (cond: unknown, message: string) => asserts cond;

/** Lists the tools, asks a question the documents answer (with citations) and one they don't (refused, 0 tokens). */
async function exercise(transport: Transport, check: Check, question: string, expected: RegExp): Promise<string> {
  const client = new Client({ name: "docchat-smoke", version: "1.0.0" });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    check(tools.join() === "ask,fetch,search", `tools ${tools.join()}`);
    const a = (await client.callTool({ name: "ask", arguments: { question } })) as CallToolResult;
    const s = a.structuredContent as { status: string; answer: string; citations: unknown[] } | undefined;
    check(s?.status === "answered" && expected.test(s.answer) && s.citations.length > 0, `ask: ${JSON.stringify(a).slice(0, 300)}`);
    const r = (await client.callTool({ name: "ask", arguments: { question: "What is the capital of Mongolia?" } })) as CallToolResult;
    const refused = r.structuredContent as { status: string; usage: { total_tokens: number } } | undefined;
    check(refused?.status === "refused" && refused.usage.total_tokens === 0, `refusal: ${JSON.stringify(r).slice(0, 300)}`);
    return `tools ${tools.join(", ")}; answered with ${s.citations.length} citation(s); refused at 0 tokens`;
  } finally {
    await client.close();
  }
}

export const mcpSmokeSteps = (check: Check) => [
  {
    name: "MCP over Streamable HTTP (official SDK client): tools, an answer with citations, a refusal",
    run: (ctx: McpSmokeCtx) =>
      exercise(
        new StreamableHTTPClientTransport(new URL(`${ctx.server?.url}/api/v1/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${ctx.apiKey}` } },
        }),
        check,
        "When does the Larkspur depot open?",
        /7:30/,
      ),
  },
  {
    name: "MCP over stdio: docchat mcp --deployment ID",
    run: (ctx: McpSmokeCtx) =>
      exercise(
        new StdioClientTransport({
          command: ctx.bin,
          args: ["mcp", "--deployment", ctx.deploymentId, "--data", ctx.data],
          cwd: ctx.work,
          env: ctx.env,
          stderr: "pipe",
        }),
        check,
        "What is the warranty of the Kettle K2?",
        /2 years/,
      ),
  },
];
