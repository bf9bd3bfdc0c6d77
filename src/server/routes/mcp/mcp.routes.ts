import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";
import { appError } from "../../../errors/index.ts";
import { noToolsForPrivateGpt } from "../../../mcp/mcp-errors.ts";
import { endpointPath } from "../../pipeline/endpoints.ts";
import type { RequestStates } from "../../pipeline/request-state.ts";
import { HEARTBEAT_MS } from "../../sse.ts";
import { mcpDocs } from "./mcp.schemas.ts";

export const MCP_PATH = endpointPath("mcp");

// The MCP SDK (and zod) load on the first MCP request, so CLI commands and servers that never see one start faster.
let transport: Promise<typeof import("../../../mcp/mcp-http.ts")> | null = null;
const mcpHttp = () => {
  transport ??= import("../../../mcp/mcp-http.ts");
  return transport;
};

/**
 * The deployment's MCP server (Streamable HTTP, stateless). The gate has already judged the request like any API
 * call (key, published, IP allow-list, rate limit); its failures leave as JSON-RPC errors (error-response.ts).
 * GET (a server-to-client stream) and DELETE (ending a session) have nothing to do without sessions: 405.
 */
export function mcpRoutes(services: Services, state: RequestStates) {
  const notAllowed = ({ set }: { set: { headers: Record<string, unknown> } }) => {
    set.headers.allow = "POST";
    throw appError("method_not_allowed", { message: "Send MCP messages with POST; this server keeps no sessions or streams." });
  };
  return new Elysia({ name: "mcp" })
    .post(
      MCP_PATH,
      async ({ request, body }) => {
        const gate = state.gateOf(request);
        if (gate.deployment.kind === "private_gpt") throw noToolsForPrivateGpt();
        const { handleMcpRequest } = await mcpHttp();
        return handleMcpRequest({
          request,
          body,
          caller: gate,
          tools: services.mcpTools,
          version: services.version,
          keepAliveMs: HEARTBEAT_MS,
          log: services.log,
        });
      },
      { detail: mcpDocs.post },
    )
    .get(MCP_PATH, notAllowed, { detail: mcpDocs.get })
    .delete(MCP_PATH, notAllowed, { detail: mcpDocs.delete });
}
