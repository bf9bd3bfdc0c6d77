import { publicDoc } from "../../openapi/public-doc.ts";
import { jsonRpcMessageSchema } from "../../openapi/public-schemas.ts";

const MCP_GUIDE =
  "The Model Context Protocol server of the deployment behind the key (docs/mcp.md): no sessions are kept, so only POST is served.";

/** How these routes appear in the public OpenAPI document (openapi/public-openapi.ts). */
export const mcpDocs = {
  post: publicDoc({
    tag: "MCP",
    summary: "The deployment's MCP server (Streamable HTTP): search, fetch and ask tools with citations.",
    description:
      "A JSON-RPC message of the Model Context Protocol (revision 2025-11-25): initialize, tools/list, tools/call (search, fetch, ask), ping. " +
      "Send `Accept: application/json, text/event-stream`; replies stream as SSE. A refusal by the gate is a JSON-RPC error whose code is the HTTP status. See docs/mcp.md.",
    body: { json: jsonRpcMessageSchema },
    ok: [
      { sse: jsonRpcMessageSchema, description: "the JSON-RPC response, as an SSE stream" },
      { status: 202, description: "a notification or response accepted" },
    ],
    errors: [400, 401, 403, 406, 415, 429],
    jsonRpcErrors: true,
  }),
  get: publicDoc({
    tag: "MCP",
    summary: "Not served: no server-to-client stream without sessions (405).",
    description: MCP_GUIDE,
    ok: [],
    errors: [405],
    jsonRpcErrors: true,
  }),
  delete: publicDoc({
    tag: "MCP",
    summary: "Not served: there is no session to end (405).",
    description: MCP_GUIDE,
    ok: [],
    errors: [405],
    jsonRpcErrors: true,
  }),
};
