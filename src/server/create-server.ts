import { Elysia } from "elysia";
import type { Services } from "../app.ts";
import type { RegisteredRoute } from "./openapi/public-openapi.ts";
import { bodyPlugin, withoutParseOnReads } from "./pipeline/body.plugin.ts";
import { errorsPlugin } from "./pipeline/errors.plugin.ts";
import { gatePlugin } from "./pipeline/gate.plugin.ts";
import { createGate } from "./pipeline/gate.ts";
import { metricsPlugin } from "./pipeline/metrics.plugin.ts";
import { createRequestState, requestStatePlugin, type SocketInfo } from "./pipeline/request-state.ts";
import { chatRoutes } from "./routes/chat/chat.routes.ts";
import { documentsRoutes } from "./routes/documents/documents.routes.ts";
import { mcpRoutes } from "./routes/mcp/mcp.routes.ts";
import { modelsRoutes } from "./routes/models/models.routes.ts";
import { nativeChatRoutes } from "./routes/native/native-chat.routes.ts";
import { nativeVisitorRoutes } from "./routes/native/native-visitor.routes.ts";
import { ownerRoutes } from "./routes/owner/owner.routes.ts";
import { responsesRoutes } from "./routes/responses/responses.routes.ts";
import { consoleRoutes } from "./routes/system/console.routes.ts";
import { healthRoutes } from "./routes/system/health.routes.ts";
import { metricsRoutes } from "./routes/system/metrics.routes.ts";
import { openApiRoutes } from "./routes/system/openapi.routes.ts";
import { widgetRoutes } from "./routes/widget/widget.routes.ts";

/**
 * The Elysia root: the request pipeline as named plugins, in the order a request meets them — request state
 * (id, parsed path, endpoint), the gate (CORS, head limit, key, rate limit), body and uploads, errors, metrics —
 * then one plugin per route family. Routes call services; the gate's verdict is in the request state.
 */
export function createServer(services: Services) {
  const { config } = services;
  const gate = createGate({
    resolveKey: services.deployments.resolveKey,
    resolveKeyNow: services.deployments.resolveKeyNow,
    limiter: services.limiter,
    trustedProxies: config.trustedProxies,
    limitScale: config.rateLimitScale,
  });
  let app: { server: SocketInfo | null; routes: RegisteredRoute[] } | null = null;
  const state = createRequestState({ clientAddress: gate.clientIp, socket: () => app?.server });
  const gating = gatePlugin(state, gate, { maxBodyBytes: config.maxBodyBytes, handleAgain: (request) => root.handle(request) });

  // Bun's native router matches the raw path ("/api/v1/documents/%2E%2E" as id ".."), while request.url, which
  // the gate reads, has its dot segments resolved; routing on request.url alone keeps the two in agreement.
  const root = new Elysia({ name: "docchat", systemRouter: false })
    .use(requestStatePlugin(state, { nativeApi: config.nativeApi }))
    .use(gating.plugin)
    .use(bodyPlugin(services, state, gating.run))
    .use(errorsPlugin(services, state))
    .use(metricsPlugin(services, state))
    .use(healthRoutes(services))
    .use(metricsRoutes(services))
    .use(openApiRoutes(services.version, () => app?.routes ?? []))
    .use(modelsRoutes(state))
    .use(chatRoutes(services, state))
    .use(responsesRoutes(services, state))
    .use(documentsRoutes(services, state))
    .use(widgetRoutes(services, state))
    .use(nativeChatRoutes(services, state))
    .use(nativeVisitorRoutes(services, state))
    .use(mcpRoutes(services, state))
    .use(ownerRoutes(services, state))
    .use(consoleRoutes());
  withoutParseOnReads(root.routes);
  app = root as unknown as { server: SocketInfo | null; routes: RegisteredRoute[] };
  return root;
}
