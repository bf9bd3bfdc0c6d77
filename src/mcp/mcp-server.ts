import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { appError, isAppError } from "../errors/index.ts";
import type { Logger } from "../log.ts";
import { redact } from "../log.ts";
import { toolError } from "./mcp-errors.ts";
import { askInput, askOutput, fetchInput, fetchOutput, searchInput, searchOutput } from "./mcp-schemas.ts";
import type { McpCaller, McpTools } from "./mcp-tools.ts";

/** What an agent reads before its first call: which documents these are and how to use the tools. */
export function mcpInstructions(d: McpCaller["deployment"]): string {
  const about = d.description.trim() ? `${d.name}: ${d.description.trim()}` : d.name;
  return [
    about,
    `These tools answer from the documents of "${d.name}" only, with citations (document, page, row or heading).`,
    "Use `ask` for a grounded answer to a question; it refuses, at no cost, when the documents do not cover the question, and never answers without sources.",
    "Use `search` to find passages and `fetch` to read one with its neighbours. Pass `conversation_id` from an earlier `ask` to ask a follow-up.",
  ].join("\n");
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;

/**
 * One MCP server over the three tools for one caller. Over HTTP it lives for one request (stateless: any node of
 * the store can answer any request); over stdio for the process, reading the caller afresh on every call.
 */
export function createMcpServer(o: { tools: McpTools; version: string; caller: () => McpCaller; signal?: AbortSignal; log?: Logger }) {
  const server = new McpServer(
    { name: "docchat", title: o.caller().deployment.name, version: o.version },
    { instructions: mcpInstructions(o.caller().deployment), capabilities: { tools: { listChanged: false } } },
  );
  /** Structured content, also serialised as text for clients that read only text; failures as tool errors. */
  const run = async (fn: () => Promise<Record<string, unknown>>) => {
    try {
      const structured = await fn();
      return { content: [{ type: "text" as const, text: JSON.stringify(structured) }], structuredContent: structured };
    } catch (e) {
      if (isAppError(e)) return toolError(e);
      o.log?.error("mcp tool failed", { error: redact(String((e as Error)?.stack ?? e)) });
      return toolError(appError("internal_error"));
    }
  };
  server.registerTool(
    "search",
    {
      title: "Search the documents",
      description: "Ranked passages of the documents for a query, each with its id, document, citation and relevance score.",
      inputSchema: searchInput,
      outputSchema: searchOutput,
      annotations: { ...READ_ONLY, idempotentHint: true },
    },
    (args) => run(() => o.tools.search(o.caller(), args)),
  );
  server.registerTool(
    "fetch",
    {
      title: "Read a passage",
      description: "The passage with this id (from search or ask) with its neighbouring passages in document order, and its citation.",
      inputSchema: fetchInput,
      outputSchema: fetchOutput,
      annotations: { ...READ_ONLY, idempotentHint: true },
    },
    (args) => run(() => o.tools.fetch(o.caller(), args)),
  );
  server.registerTool(
    "ask",
    {
      title: "Ask the documents",
      description:
        "A grounded answer with its sources and citations, or a structured refusal (status `refused`, no tokens used) when the documents do not cover the question.",
      inputSchema: askInput,
      outputSchema: askOutput,
      annotations: { ...READ_ONLY, idempotentHint: false },
    },
    (args, extra) => run(() => o.tools.ask(o.caller(), args, o.signal ? AbortSignal.any([extra.signal, o.signal]) : extra.signal)),
  );
  return server;
}
