import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { appError, type ErrorCode } from "../errors/index.ts";
import type { Logger } from "../log.ts";
import { jsonRpcErrorResponse } from "./mcp-errors.ts";
import { createMcpServer } from "./mcp-server.ts";
import type { McpCaller, McpTools } from "./mcp-tools.ts";

/**
 * One Streamable HTTP request, stateless: a server and transport made for it and closed when its response stream
 * ends (or the client leaves, which also aborts an answer in progress). No session is kept, so every node sharing
 * the store answers any request, and the gate judges each one on its own. Replies stream as SSE with keep-alive
 * comments well under the server's idle timeout, so a slow answer is not cut off.
 */
export async function handleMcpRequest(o: {
  request: Request;
  body: unknown;
  caller: McpCaller;
  tools: McpTools;
  version: string;
  keepAliveMs: number;
  log?: Logger;
}): Promise<Response> {
  const server = createMcpServer({ tools: o.tools, version: o.version, caller: () => o.caller, signal: o.request.signal, log: o.log });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, keepAliveMs: o.keepAliveMs });
  await server.connect(transport);
  const close = () => void server.close().catch(() => {});
  let res: Response;
  try {
    res = await transport.handleRequest(o.request, { parsedBody: o.body });
  } catch (e) {
    close();
    throw e;
  }
  if (!res.ok) {
    close();
    return inOurShape(res);
  }
  if (!res.body) {
    close();
    return res;
  }
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      const { done, value } = await reader.read();
      if (!done) return c.enqueue(value);
      c.close();
      close();
    },
    cancel(reason) {
      close();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, headers: res.headers });
}

const BY_STATUS: Record<number, ErrorCode> = {
  404: "not_found",
  405: "method_not_allowed",
  406: "not_acceptable",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

/** The transport's own refusals (wrong Accept or Content-Type, not JSON-RPC) with a stable code like the gate's. */
async function inOurShape(res: Response): Promise<Response> {
  const sdk = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  const e = appError(BY_STATUS[res.status] ?? "bad_request", { message: sdk?.error?.message || undefined });
  const headers = new Headers(res.headers);
  headers.set("content-type", "application/json; charset=utf-8");
  return new Response(JSON.stringify(jsonRpcErrorResponse(e)), { status: e.status, headers });
}
