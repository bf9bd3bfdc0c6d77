import { Elysia } from "elysia";
import type { Services } from "../app.ts";
import { appError, isAppError } from "../errors/index.ts";
import { redact } from "../log.ts";
import { parseBody } from "./pipeline/body.ts";
import { endpointFor, endpointPath, endpoints, isNative } from "./pipeline/endpoints.ts";
import { toErrorResponse } from "./pipeline/error-response.ts";
import { createGate, extractKey, type GateResult } from "./pipeline/gate.ts";
import { pathOf } from "./pipeline/path-of.ts";
import { createRequestState } from "./pipeline/request-state.ts";
import { readUploadBody, releaseUpload } from "./pipeline/upload-body.ts";
import { chatRoutes } from "./routes/chat/chat.routes.ts";
import { documentsRoutes } from "./routes/documents/documents.routes.ts";
import { mcpRoutes } from "./routes/mcp/mcp.routes.ts";
import { openaiV1Routes } from "./routes/models/models.routes.ts";
import { nativeChatRoutes } from "./routes/native/native-chat.routes.ts";
import { nativeVisitorRoutes } from "./routes/native/native-visitor.routes.ts";
import { isOwnerUpload, ownerRoutes } from "./routes/owner/owner.routes.ts";
import { readCookie, SESSION_COOKIE } from "./routes/owner/owner-guard.ts";
import { responsesRoutes } from "./routes/responses/responses.routes.ts";
import { consoleRoutes } from "./routes/system/console.routes.ts";
import { healthRoutes } from "./routes/system/health.routes.ts";
import { metricsRoutes } from "./routes/system/metrics.routes.ts";
import { openApiRoutes } from "./routes/system/openapi.routes.ts";
import { widgetRoutes } from "./routes/widget/widget.routes.ts";

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "authorization, x-api-key, content-type, mcp-protocol-version, mcp-session-id, last-event-id",
  "access-control-expose-headers": "x-request-id, x-ratelimit-limit, x-ratelimit-remaining, retry-after, mcp-session-id, www-authenticate",
  "access-control-max-age": "600",
};

/**
 * Bun refuses a request head over its own limit (16 KiB, or --max-http-header-size) with a bare 431; below
 * that, this limit answers in the error shape with rate-limit headers. The binary raises Bun's limit.
 */
const MAX_HEAD_BYTES = 12 * 1024;
/** Requests to unknown /api paths, per address per minute. */
const UNKNOWN_API_LIMIT = 120;

function headBytes(request: Request): number {
  let n = request.url.length;
  request.headers.forEach((v, k) => {
    n += k.length + v.length + 4;
  });
  return n;
}

function declaredLength(request: Request): number {
  const n = Number(request.headers.get("content-length") ?? "0");
  return Number.isFinite(n) ? n : 0;
}

/** Uploads stream to spool files and are parsed and stored in the parse pool: only so many at once. */
function createUploadSlots(max: number) {
  let inUse = 0;
  return {
    acquire(): () => void {
      if (inUse >= max)
        throw appError("overloaded", { message: "Too many uploads at once. Please try again shortly.", headers: { "retry-after": "5" } });
      inUse++;
      let released = false;
      return () => {
        if (!released) inUse--;
        released = true;
      };
    },
  };
}

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
  const gate = createGate({
    resolveKey: services.deployments.resolveKey,
    limiter: services.limiter,
    trustedProxies: config.trustedProxies,
    limitScale: config.rateLimitScale,
  });
  const state = createRequestState();
  const metricsOn = config.metricsToken !== "";
  const uploads = createUploadSlots(config.maxConcurrentUploads);

  const runGate = async (request: Request, url: URL, headers: Record<string, string | number>, ip: string, bodyKey?: unknown) => {
    const st = state.get(request);
    if (!st.endpoint || st.gate) return;
    st.gate = await gate.check({
      endpoint: st.endpoint,
      key: extractKey(request.headers, url, bodyKey),
      clientIp: ip,
      headers,
      method: request.method,
      path: url.pathname,
    });
  };

  // Bun's native router matches the raw path ("/api/v1/documents/%2E%2E" as id ".."), while request.url, which
  // the gate reads, has its dot segments resolved; routing on request.url alone keeps the two in agreement.
  const app = new Elysia({ name: "docchat", systemRouter: false })
    .onRequest(async ({ request, set, server }) => {
      const st = state.init(request);
      set.headers["x-request-id"] = st.requestId;
      const path = pathOf(request.url);
      const api = path.startsWith("/api/");
      const headers = set.headers as Record<string, string>;
      st.endpoint = endpointFor(path);
      // With the native family switched off its paths are not gated either: they are plain 404s.
      if (st.endpoint && isNative(st.endpoint) && !config.nativeApi) st.endpoint = undefined;
      if (api) {
        Object.assign(set.headers, CORS);
        st.clientIp = gate.clientIp(server?.requestIP(request)?.address ?? "0.0.0.0", request.headers);
      }
      if (headBytes(request) > MAX_HEAD_BYTES) {
        if (api) await gate.limitByAddress({ name: "head", limit: UNKNOWN_API_LIMIT, clientIp: st.clientIp, headers });
        throw appError("request_header_too_large", { message: `The request's address and headers must be under ${MAX_HEAD_BYTES} bytes.` });
      }
      if (!api) return;
      const limit = st.endpoint ? endpoints[st.endpoint].limit : UNKNOWN_API_LIMIT;
      if (request.method === "OPTIONS") {
        await gate.limitByAddress({ name: st.endpoint ?? "api", limit, clientIp: st.clientIp, headers, peek: true });
        return new Response(null, { status: 204, headers });
      }
      // Unknown /api paths (404s, dot-segment tricks) are counted by address and carry the headers too.
      if (!st.endpoint) return await gate.limitByAddress({ name: "api", limit, clientIp: st.clientIp, headers });
      const url = new URL(request.url);
      const keyInHeaderOrQuery = extractKey(request.headers, url) !== null;
      // A key in a form field is for small bodies: a larger one without a header key is refused unread.
      if (keyInHeaderOrQuery || !hasFormBody(request)) await runGate(request, url, set.headers as Record<string, string>, st.clientIp);
      else if (declaredLength(request) > config.maxBodyBytes) {
        try {
          await runGate(request, url, set.headers as Record<string, string>, st.clientIp);
        } catch (e) {
          if (isAppError(e) && e.code === "bad_key") {
            throw appError("bad_key", {
              message: `Send the API key in the Authorization or X-API-KEY header with a body over ${config.maxBodyBytes} bytes.`,
            });
          }
          throw e;
        }
      }
    })
    .onParse(async ({ request, set }) => {
      const st = state.get(request);
      const path = pathOf(request.url);
      const upload = (st.endpoint === "v1.documents" && request.method === "POST") || isOwnerUpload(path);
      // The owner's session cookie is checked before an upload body is read, as the API key is for visitors.
      if (isOwnerUpload(path) && !(await services.sessions.authenticate(readCookie(request, SESSION_COOKIE)))) {
        throw appError("unauthorized", { message: "Your session has ended. Please sign in again." });
      }
      // Until the gate has passed (the key may be a form field), no more than a small body is read.
      const gated = !st.endpoint || st.gate !== undefined;
      const limit = !gated ? config.maxBodyBytes : upload ? config.maxUploadBytes : config.maxBodyBytes;
      if (upload && gated) st.release = uploads.acquire();
      let body: Record<string, unknown> = {};
      let failure: unknown = null;
      try {
        // a gated upload streams to the spool folder instead of memory (deleted after the response); an
        // ungated one may only be small, since its key can't have been checked yet
        body = upload && gated ? await readUploadBody(request, limit, services.spoolDir) : await parseBody(request, limit);
      } catch (e) {
        failure = e;
      }
      try {
        await runGate(request, new URL(request.url), set.headers as Record<string, string>, st.clientIp, body.api_key);
      } catch (e) {
        // A body that can't be read can't carry a key either: the request is malformed (400), not keyless.
        if (failure && isAppError(e) && e.code === "bad_key") throw failure;
        throw e;
      }
      if (failure) throw failure;
      return body;
    })
    .onError(({ code, error, request, set }) => {
      const st = state.get(request);
      let e = isAppError(error) ? error : null;
      if (!e && services.store.isUnavailable(error)) {
        log.warn("database unreachable", {
          requestId: st.requestId,
          path: pathOf(request.url),
          error: redact(String((error as Error)?.message ?? error)),
        });
        e = appError("database_unavailable");
      }
      if (!e && code === "NOT_FOUND") e = appError("not_found", { message: "No such endpoint." });
      if (!e && code === "VALIDATION") {
        const v = error as { all?: { path?: string; summary?: string; message?: string }[] };
        const first = v.all?.[0];
        const param = first?.path?.replace(/^\//, "").replaceAll("/", ".") || undefined;
        e = appError("bad_request", {
          param,
          message: `Invalid request: ${param ? `${param}: ` : ""}${first?.summary ?? first?.message ?? "wrong type"}.`,
        });
      }
      // An AppError thrown while parsing (the gate's verdict on a form-field key, 413) arrives wrapped.
      if (!e && code === "PARSE") {
        const cause = (error as { cause?: unknown }).cause;
        e = isAppError(cause) ? cause : appError("bad_request", { param: "body", message: "The request body could not be read." });
      }
      if (!e) {
        log.error("unhandled error", {
          requestId: st.requestId,
          path: new URL(request.url).pathname,
          error: redact(String((error as Error)?.stack ?? error)),
        });
        e = appError("internal_error");
      }
      const response = toErrorResponse(e, set.headers as Record<string, string>, st.endpoint);
      // Elysia would otherwise keep a parse-phase 400 over the legacy native chat's 200.
      set.status = response.status;
      return response;
    })
    .onAfterResponse(({ request, set, route, responseValue }) => {
      void releaseUpload(request);
      const st = state.get(request);
      st.release?.();
      st.release = undefined;
      // Per-request series cost a few µs on every request, so they are kept only when metrics are on.
      if (metricsOn) {
        const status = responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200;
        // The route pattern, never the raw path: ids and junk paths must not each become a time series.
        // A request refused by the gate before routing is counted under its endpoint's documented path.
        const label = route || (st.endpoint ? endpointPath(st.endpoint) : "unmatched");
        services.metrics.request({ route: label, method: request.method, status, seconds: (performance.now() - st.started) / 1000 });
      }
      if (config.logLevel !== "debug") return;
      log.debug("request", {
        id: st.requestId,
        method: request.method,
        path: pathOf(request.url),
        status: set.status,
        ms: Math.round(performance.now() - st.started),
      });
    })
    .use(healthRoutes(services))
    .use(metricsRoutes(services))
    .use(openApiRoutes(services.version))
    .use(openaiV1Routes(state))
    .use(chatRoutes(services, state))
    .use(responsesRoutes(services, state))
    .use(documentsRoutes(services, state))
    .use(widgetRoutes(services, state))
    .use(nativeVisitorRoutes(services, state))
    .use(nativeChatRoutes(services, state))
    .use(mcpRoutes(services, state))
    .use(ownerRoutes(services))
    .use(consoleRoutes());

  return app;
}

export type { GateResult };
