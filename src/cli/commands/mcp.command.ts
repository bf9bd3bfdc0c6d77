import { appError } from "../../errors/index.ts";
import { noToolsForPrivateGpt } from "../../mcp/mcp-errors.ts";
import { createGate } from "../../server/pipeline/gate.ts";
import type { Command } from "../command.ts";

export const mcpCommand: Command = {
  path: ["mcp"],
  usage: "mcp --deployment ID",
  summary: "Serve one deployment's MCP server over stdin/stdout, for desktop clients that launch a local command (docs/mcp.md).",
  options: { deployment: { type: "string", doc: "the deployment whose documents the tools answer from" } },
  async run(ctx) {
    const deploymentId = ctx.values.deployment;
    if (typeof deploymentId !== "string" || !deploymentId)
      throw appError("bad_request", { message: "--deployment ID is required.", param: "deployment" });
    const s = await ctx.services();
    // loaded here, not with the command table: the MCP SDK is needed only by this command
    const { localKeyContext, STDIO_CLIENT_IP, serveMcpStdio } = await import("../../mcp/mcp-stdio.ts");
    const gate = createGate({
      resolveKey: s.deployments.resolveKey,
      resolveKeyNow: s.deployments.resolveKeyNow,
      limiter: s.limiter,
      trustedProxies: [],
      limitScale: s.config.rateLimitScale,
    });
    await serveMcpStdio({
      deploymentId,
      context: () => localKeyContext(s.repos, deploymentId),
      judge: async (context) => {
        const caller = await gate.checkLocal({ endpoint: "mcp", context, clientIp: STDIO_CLIENT_IP, headers: {} });
        if (caller.deployment.kind === "private_gpt") throw noToolsForPrivateGpt();
        return caller;
      },
      tools: s.mcpTools,
      version: s.version,
      log: s.log,
    });
    return 0;
  },
};
