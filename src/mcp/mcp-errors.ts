import { type AppError, appError } from "../errors/index.ts";

/**
 * An AppError as a JSON-RPC error object. JSON-RPC leaves codes outside -32768..-32000 to the application, so the
 * code is the HTTP status the API answers with (401 bad key, 402 no tokens, 403 blocked address, 429 rate limit):
 * a client that shows only code and message still says what happened. `data.code` is the stable catalogue code.
 */
export function jsonRpcError(e: AppError) {
  return {
    code: e.status,
    message: e.message,
    data: {
      code: e.code,
      type: e.type,
      status: e.status,
      ...(e.param ? { param: e.param } : {}),
      ...(e.headers?.["retry-after"] ? { retry_after: Number(e.headers?.["retry-after"]) } : {}),
    },
  };
}

/** A whole JSON-RPC error response (id null when the request was refused before it was read). */
export function jsonRpcErrorResponse(e: AppError, id: string | number | null = null) {
  return { jsonrpc: "2.0" as const, id, error: jsonRpcError(e) };
}

/**
 * A tool that could not run (no tokens, not trained, a passage not found) reports it inside its result, as MCP asks
 * of tool execution errors, so the agent reads it: the message and the stable code, as JSON.
 */
export function toolError(e: AppError) {
  return {
    isError: true as const,
    content: [{ type: "text" as const, text: JSON.stringify({ error: { code: e.code, type: e.type, message: e.message } }) }],
  };
}

/** A Private GPT answers from its persona alone: nothing an agent could cite, so no tools. */
export const noToolsForPrivateGpt = (): AppError =>
  appError("sources_unsupported", { message: "This assistant has no documents to search or cite, so it offers no MCP tools." });
