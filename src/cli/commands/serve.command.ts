import { createServer } from "../../server/create-server.ts";
import { RUNTIME_HEAD_LIMIT, runtimeHeadLimit } from "../../server/pipeline/head-limit.ts";
import { acquireServerLock } from "../../store/data-dir-lock.ts";
import { describePgUrl } from "../../store/postgres/pg-store.ts";
import { ensurePrivateDir } from "../../store/sqlite/db.ts";
import type { Command } from "../command.ts";
import { drainServer, waitForShutdownSignal } from "../shutdown.ts";

type App = ReturnType<typeof createServer>;

/**
 * Elysia asks Bun for SO_REUSEPORT by default, which lets a second server bind a port already in use and take
 * part of its traffic (against another database). One port, one server: a taken port stops start-up.
 */
function listenOrThrow(app: App, opts: { port: number; hostname: string; idleTimeout: number; maxRequestBodySize: number }): App {
  try {
    return app.listen({ ...opts, reusePort: false });
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "EADDRINUSE" || /in use/i.test(String((e as Error).message))) {
      throw new Error(
        `port ${opts.port} on ${opts.hostname} is already in use (another docchat or another program is listening there); stop it or choose another --port`,
      );
    }
    throw e;
  }
}

export const serveCommand: Command = {
  path: ["serve"],
  usage: "serve [--port N] [--host H] [--data DIR]",
  summary: "Run the HTTP service (GET /health answers 200 when ready).",
  options: {},
  async run(ctx) {
    // start-up phases since the process started (performance.now() counts from there), in the listening line
    const phases: Record<string, number> = { loaded_ms: Math.round(performance.now()) };
    // Held until the process exits (after the runner's services.close() has checkpointed the WAL), so
    // `docchat restore` and a second server refuse this data dir meanwhile.
    ensurePrivateDir(ctx.config.dataDir);
    const releaseLock = acquireServerLock(ctx.config.dataDir);
    process.once("exit", releaseLock);
    // Installed before the slow start-up steps so an early SIGTERM also ends in a clean shutdown.
    let cutNow = () => {};
    const cut = new Promise<void>((resolve) => {
      cutNow = resolve;
    });
    const signalled = waitForShutdownSignal(() => cutNow());
    const services = await ctx.services();
    phases.services_ms = Math.round(performance.now());
    // Refuses to start on an index built by another embedder (names the reindex command).
    await services.startWorkers();
    phases.workers_ms = Math.round(performance.now());
    const app = listenOrThrow(createServer(services), {
      port: ctx.config.port,
      hostname: ctx.config.host,
      idleTimeout: 60,
      // The body limits are enforced by the server itself (body.ts), so a 413 comes in the error shape with
      // rate-limit headers; Bun's own limit would answer a bare 413 first.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    });
    const port = app.server?.port;
    phases.listening_ms = Math.round(performance.now());
    services.log.info("docchat listening", {
      url: `http://${ctx.config.host}:${port}`,
      data: ctx.config.dataDir,
      store: ctx.config.databaseUrl ? `postgresql ${describePgUrl(ctx.config.databaseUrl)}` : "sqlite",
      startup: phases,
    });
    // What a first-time operator opens next: the console, where they sign in with their account's email and password.
    const local = ["0.0.0.0", "::", ""].includes(ctx.config.host)
      ? "127.0.0.1"
      : ctx.config.host.includes(":")
        ? `[${ctx.config.host}]`
        : ctx.config.host;
    services.log.info("owner console", { url: `${ctx.config.publicUrl || `http://${local}:${port}`}/console/` });
    // checked a moment after start: it loads node:http, which nothing else needs and no first request should wait for
    setTimeout(() => {
      if (runtimeHeadLimit() < RUNTIME_HEAD_LIMIT)
        services.log.warn("request heads over the runtime's limit get a bare 431 without an error body", {
          limit: runtimeHeadLimit(),
          fix: `start with bun run serve, or set BUN_OPTIONS=--max-http-header-size=${RUNTIME_HEAD_LIMIT}`,
        });
    }, 1000).unref();
    const signal = await signalled;
    services.log.info("shutting down", { signal });
    // Stop accepting, let in-flight requests finish (bounded); the runner then closes services (shutdown hooks, WAL checkpoint).
    const drained = app.server ? await drainServer(app.server, { timeoutMs: ctx.config.shutdownTimeoutMs, log: services.log, cut }) : null;
    services.log.info("stopped accepting requests", { ...drained });
    return 0;
  },
};
