import { createServer } from "../../server/create-server.ts";
import type { Command } from "../command.ts";

export const serveCommand: Command = {
  path: ["serve"],
  usage: "serve [--port N] [--host H] [--data DIR]",
  summary: "Run the HTTP service (GET /health answers 200 when ready).",
  options: {},
  async run(ctx) {
    const services = await ctx.services();
    // Refuses to start on an index built by another embedder (names the reindex command).
    await services.startWorkers();
    const app = createServer(services).listen({ port: ctx.config.port, hostname: ctx.config.host, idleTimeout: 60, maxRequestBodySize: Math.max(ctx.config.maxUploadBytes, ctx.config.maxBodyBytes) + 65_536 });
    const port = app.server?.port;
    services.log.info("docchat listening", { url: `http://${ctx.config.host}:${port}`, data: ctx.config.dataDir });
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        services.log.info("shutting down", { signal });
        resolve();
      };
      process.once("SIGTERM", () => stop("SIGTERM"));
      process.once("SIGINT", () => stop("SIGINT"));
    });
    await app.stop();
    return 0;
  },
};
