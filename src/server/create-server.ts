import { Elysia } from "elysia";
import type { Services } from "../app.ts";
import { appError, isAppError } from "../errors/index.ts";
import { redact } from "../log.ts";
import { parseBody } from "./body.ts";
import { readUploadBody, releaseUpload } from "./upload-body.ts";
import { pathOf } from "./path-of.ts";
import { endpointFor, isNative } from "./endpoints.ts";
import { toErrorResponse } from "./error-response.ts";
import { createGate, extractKey, type GateResult } from "./gate.ts";
import { chatRoutes } from "./routes/chat.routes.ts";
import { healthRoutes } from "./routes/health.routes.ts";
import { nativeChatRoutes } from "./routes/native-chat.routes.ts";
import { documentsRoutes } from "./routes/documents.routes.ts";
import { nativeVisitorRoutes } from "./routes/native-visitor.routes.ts";
import { openaiV1Routes } from "./routes/openai-v1.routes.ts";
import { widgetRoutes } from "./routes/widget.routes.ts";
import { createRequestState } from "./request-state.ts";
import { consoleRoutes } from "./routes/console.routes.ts";
import { isOwnerUpload, ownerRoutes } from "./routes/owner.routes.ts";

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "authorization, x-api-key, content-type",
  "access-control-expose-headers": "x-request-id, x-ratelimit-limit, x-ratelimit-remaining, retry-after",
  "access-control-max-age": "600",
};

function hasFormBody(request: Request): boolean {
  const t = request.headers.get("content-type") ?? "";
  return request.method !== "GET" && request.method !== "HEAD" && /form/i.test(t);
}

/**
 * The Elysia root. Visitor endpoints (/api/*) are gated in onRequest — before any body is read — so that
 * even a 413 or a malformed body carries rate-limit headers and counts against the limit. Only when the key
 * can arrive in a form field and no header/query key was sent is the gate run after parsing.
 */
export function createServer(services: Services) {
  const { config, log } = services;
  const gate = createGate({ keys: services.repos.keys, limiter: services.limiter, trustedProxies: config.trustedProxies, limitScale: config.rateLimitScale });
  const state = createRequestState();

  const runGate = (request: Request, url: URL, headers: Record<string, string | number>, ip: string, bodyKey?: unknown) => {
    const st = state.get(request);
    if (!st.endpoint || st.gate) return;
    st.gate = gate.check({ endpoint: st.endpoint, key: extractKey(request.headers, url, bodyKey), clientIp: ip, headers });
  };

  const app = new Elysia({ name: "docchat" })
    .onRequest(({ request, set, server }) => {
      const st = state.init(request);
      set.headers["x-request-id"] = st.requestId;
      const path = pathOf(request.url);
      if (path.startsWith("/api/")) Object.assign(set.headers, CORS);
      if (request.method === "OPTIONS" && path.startsWith("/api/")) return new Response(null, { status: 204, headers: set.headers as Record<string, string> });
      st.endpoint = endpointFor(path);
      // With the native family switched off its paths are not gated either: they are plain 404s.
      if (st.endpoint && isNative(st.endpoint) && !config.nativeApi) st.endpoint = undefined;
      if (!st.endpoint) return;
      st.clientIp = gate.clientIp(server?.requestIP(request)?.address ?? "0.0.0.0", request.headers);
      const url = new URL(request.url);
      const keyInHeaderOrQuery = extractKey(request.headers, url) !== null;
      if (keyInHeaderOrQuery || !hasFormBody(request)) runGate(request, url, set.headers as Record<string, string>, st.clientIp);
    })
    .onParse(async ({ request, set }) => {
      const st = state.get(request);
      const upload = st.endpoint === "v1.documents" || isOwnerUpload(new URL(request.url).pathname);
      const limit = upload ? config.maxUploadBytes : config.maxBodyBytes;
      let body: Record<string, unknown> = {};
      let failure: unknown = null;
      try {
        // uploads stream to the spool folder instead of memory (deleted after the response)
        body = upload ? await readUploadBody(request, limit, services.spoolDir) : await parseBody(request, limit);
      } catch (e) {
        failure = e;
      }
      runGate(request, new URL(request.url), set.headers as Record<string, string>, st.clientIp, body.api_key);
      if (failure) throw failure;
      return body;
    })
    .onError(({ code, error, request, set }) => {
      const st = state.get(request);
      let e = isAppError(error) ? error : null;
      if (!e && code === "NOT_FOUND") e = appError("not_found", { message: "No such endpoint." });
      if (!e && code === "VALIDATION") {
        const v = error as { all?: { path?: string; summary?: string; message?: string }[] };
        const first = v.all?.[0];
        const param = first?.path?.replace(/^\//, "").replaceAll("/", ".") || undefined;
        e = appError("bad_request", { param, message: `Invalid request: ${param ? `${param}: ` : ""}${first?.summary ?? first?.message ?? "wrong type"}.` });
      }
      // An AppError thrown while parsing (the gate's verdict on a form-field key, 413) arrives wrapped.
      if (!e && code === "PARSE") {
        const cause = (error as { cause?: unknown }).cause;
        e = isAppError(cause) ? cause : appError("invalid_json");
      }
      if (!e) {
        log.error("unhandled error", { requestId: st.requestId, path: new URL(request.url).pathname, error: redact(String((error as Error)?.stack ?? error)) });
        e = appError("internal_error");
      }
      const response = toErrorResponse(e, set.headers as Record<string, string>, st.endpoint);
      // Elysia would otherwise keep a parse-phase 400 over the legacy native chat's 200.
      set.status = response.status;
      return response;
    })
    .onAfterResponse(({ request, set }) => {
      void releaseUpload(request);
      if (config.logLevel !== "debug") return;
      const st = state.get(request);
      log.debug("request", { id: st.requestId, method: request.method, path: pathOf(request.url), status: set.status, ms: Math.round(performance.now() - st.started) });
    })
    .use(healthRoutes(services))
    .use(openaiV1Routes(state))
    .use(chatRoutes(services, state))
    .use(documentsRoutes(services, state))
    .use(widgetRoutes(services, state))
    .use(nativeVisitorRoutes(services, state))
    .use(nativeChatRoutes(services, state))
    .use(ownerRoutes(services))
    .use(consoleRoutes());

  return app;
}

export type { GateResult };
