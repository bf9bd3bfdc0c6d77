import { toOpenAPISchema } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";
import type { RequestStates } from "../../pipeline/request-state.ts";
import { citationRoutes } from "./citations.routes.ts";
import { ownerAccountRoutes } from "./owner-account.routes.ts";
import { ownerDeploymentRoutes } from "./owner-deployments.routes.ts";
import { ownerDocumentRoutes } from "./owner-documents.routes.ts";
import { ownerEvalRoutes } from "./owner-eval.routes.ts";
import { ownerExportRoutes } from "./owner-export.routes.ts";
import { createOwnerGuard, OWNER_API } from "./owner-guard.ts";
import { ownerInsightRoutes } from "./owner-insight.routes.ts";
import { ownerPrivacyRoutes } from "./owner-privacy.routes.ts";
import { ownerReportRoutes } from "./owner-reports.routes.ts";
import { ownerSessionRoutes } from "./owner-session.routes.ts";
import { ownerVisitorRoutes } from "./owner-visitor.routes.ts";
import { ownerWebhookRoutes } from "./owner-webhooks.routes.ts";

const SPEC_PATH = `${OWNER_API}/openapi.json`;

/**
 * The owner API: session-cookie auth, same-origin only (CSRF check on every state-changing request, no CORS
 * headers), never cached. Its OpenAPI document is generated from the route schemas.
 */
export function ownerRoutes(services: Services, state: RequestStates) {
  const guard = createOwnerGuard(services);
  let spec: unknown = null;
  const app = new Elysia({ name: "owner" }).onRequest(({ request, set }) => {
    if (!state.get(request).path.startsWith(`${OWNER_API}/`)) return;
    set.headers["cache-control"] = "no-store";
    set.headers["x-content-type-options"] = "nosniff";
    guard.checkCsrf(request, state.socket());
  });
  // one plugin per route family, each with the services and the session guard
  const families = [
    ownerSessionRoutes(services, guard),
    ownerAccountRoutes(services, guard),
    ownerDeploymentRoutes(services, guard),
    ownerDocumentRoutes(services, guard, state),
    ownerVisitorRoutes(services, guard),
    ownerReportRoutes(services, guard),
    ownerEvalRoutes(services, guard),
    ownerInsightRoutes(services, guard),
    ownerPrivacyRoutes(services, guard),
    // visitors' citation links (/cite/…) and the owner's viewer: one plugin, since both open the same view
    citationRoutes(services, guard),
    ownerWebhookRoutes(services, guard),
    ownerExportRoutes(services, guard),
  ];
  for (const family of families) app.use(family);
  app.get(
    SPEC_PATH,
    () => {
      spec ??= ownerOpenApi(app as unknown as { routes: RouteInfo[] }, services.version);
      return spec;
    },
    { detail: { hide: true } },
  );
  return app;
}

interface RouteInfo {
  method: string;
  path: string;
  hooks?: { body?: { properties?: Record<string, { format?: string }> } };
}
type Operation = { requestBody?: { content?: Record<string, unknown> } };

/**
 * The plugin sees the root's custom body parser as a function and so cannot tell the content type; the
 * request bodies are filled in here from each route's own body schema (multipart when it carries a file).
 */
function ownerOpenApi(app: { routes: RouteInfo[] }, version: string) {
  const generated = toOpenAPISchema(app as never, { staticFile: false }) as {
    paths: Record<string, Record<string, Operation>>;
    components?: object;
  };
  const paths = Object.fromEntries(Object.entries(generated.paths).filter(([p]) => p.startsWith(`${OWNER_API}/`) && p !== SPEC_PATH));
  for (const r of app.routes) {
    const op = paths[r.path.replace(/:(\w+)/g, "{$1}")]?.[r.method.toLowerCase()];
    const body = r.hooks?.body;
    if (!op || !body) continue;
    const multipart = Object.values(body.properties ?? {}).some((p) => p.format === "binary");
    op.requestBody = { ...op.requestBody, content: { [multipart ? "multipart/form-data" : "application/json"]: { schema: body } } };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "docchat owner API",
      version,
      description:
        "The API behind the owner console. Sign in with POST /owner/api/session; the session cookie authenticates the rest. " +
        "State-changing requests must be same-origin (Origin / Sec-Fetch-Site). Errors are {error: {message, type, code}}.",
    },
    components: {
      ...generated.components,
      securitySchemes: { session: { type: "apiKey", in: "cookie", name: "docchat_session" } },
    },
    security: [{ session: [] }],
    paths,
  };
}
