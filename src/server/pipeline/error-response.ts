import { type AppError, localizedMessage, toErrorBody } from "../../errors/index.ts";
import { jsonRpcErrorResponse } from "../../mcp/mcp-errors.ts";
import type { EndpointName } from "./endpoints.ts";

/**
 * The one mapping point from AppError to the wire. The native chat endpoint keeps its legacy shape
 * (HTTP 200 with an `error` string) except for 429, as the spec describes. `lang`: the visitor's language, which the
 * catalogue's visitor-facing messages are translated into.
 */
export function toErrorResponse(e: AppError, headers: Record<string, string>, endpoint?: EndpointName, lang?: string | null): Response {
  const h: Record<string, string> = { ...headers, ...e.headers, "content-type": "application/json; charset=utf-8" };
  const message = localizedMessage(e, lang);
  if (endpoint === "native.chat" && e.status !== 429) {
    return new Response(JSON.stringify({ error: message, code: e.code, ...(e.param ? { param: e.param } : {}) }), {
      status: 200,
      headers: h,
    });
  }
  if (endpoint === "native.faq" && e.status !== 429) {
    return new Response(JSON.stringify({ error: message, code: e.code }), { status: e.status, headers: h });
  }
  // MCP clients read JSON-RPC: the same status, the error as a JSON-RPC error object (code = the status).
  if (endpoint === "mcp") {
    if (e.status === 401) h["www-authenticate"] = 'Bearer realm="docchat", error="invalid_token"';
    return new Response(JSON.stringify(jsonRpcErrorResponse(e)), { status: e.status, headers: h });
  }
  // The native stream documents 404 for an unpublished deployment (the rest of the API answers 401).
  if (endpoint === "native.stream" && e.code === "not_published")
    return new Response(JSON.stringify(toErrorBody(e, message)), { status: 404, headers: h });
  return new Response(JSON.stringify(toErrorBody(e, message)), { status: e.status, headers: h });
}
