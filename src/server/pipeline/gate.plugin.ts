import { Elysia } from "elysia";
import { appError, isAppError } from "../../errors/index.ts";
import { endpoints } from "./endpoints.ts";
import { extractKey, type Gate } from "./gate.ts";
import { MAX_HEAD_BYTES } from "./head-limit.ts";
import type { RequestStates } from "./request-state.ts";
import { queryOf, refuseUnstorable } from "./unstorable-text.ts";

/** Any origin may call the visitor API (the key is what counts); browsers may read these response headers. */
const CORS_ORIGIN = "*";
const CORS_EXPOSE = "x-request-id, x-ratelimit-limit, x-ratelimit-remaining, retry-after, mcp-session-id, www-authenticate";
/** What a preflight answers besides: only preflights need it, so other responses carry two headers, not five. */
const CORS_PREFLIGHT = {
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "authorization, x-api-key, content-type, mcp-protocol-version, mcp-session-id, last-event-id",
  "access-control-max-age": "600",
};

/** Requests to unknown /api paths, per address per minute. */
const UNKNOWN_API_LIMIT = 120;

function headBytes(request: Request): number {
  let n = request.url.length;
  request.headers.forEach((v, k) => {
    n += k.length + v.length + 4;
  });
  return n;
}

function hasFormBody(request: Request): boolean {
  if (request.method === "GET" || request.method === "HEAD") return false;
  return /form/i.test(request.headers.get("content-type") ?? "");
}

function declaredLength(request: Request): number {
  const n = Number(request.headers.get("content-length") ?? "0");
  return Number.isFinite(n) ? n : 0;
}

/**
 * The gate as a part of the pipeline. Visitor endpoints (/api/*) are gated when the request arrives, before any
 * body is read, so that even a 413 or a malformed body carries rate-limit headers and counts against the limit.
 * Only when the key may arrive in a form field (no header or query key) is the gate run after parsing (`run`,
 * called by the body plugin). Requests outside /api pass through untouched.
 */
export function gatePlugin(state: RequestStates, gate: Gate, opts: { maxBodyBytes: number }) {
  const clientIp = (request: Request) => () => state.clientIp(request);

  /**
   * Gates the request unless it already is (or has no gated endpoint); `bodyKey`: an api_key form field. Returns
   * nothing when the gate could answer at once, a promise only when it must wait (see Gate.check).
   */
  function run(request: Request, headers: Record<string, string | number>, bodyKey?: unknown): Promise<void> | undefined {
    const st = state.get(request);
    if (!st.endpoint || st.gate) return;
    const verdict = gate.check({
      endpoint: st.endpoint,
      key: extractKey(request.headers, st.query, bodyKey),
      clientIp: clientIp(request),
      headers,
      method: request.method,
      path: st.path,
    });
    if (!(verdict instanceof Promise)) {
      st.gate = verdict;
      return;
    }
    return verdict.then((g) => {
      st.gate = g;
    });
  }

  const plugin = new Elysia({ name: "gate" }).onRequest(async ({ request, set }) => {
    const st = state.get(request);
    const headers = set.headers as Record<string, string>;
    // CORS is for browsers, which always send Origin across origins: other callers are spared the headers
    if (st.api && request.headers.get("origin") !== null) {
      headers["access-control-allow-origin"] = CORS_ORIGIN;
      headers["access-control-expose-headers"] = CORS_EXPOSE;
    }
    if (headBytes(request) > MAX_HEAD_BYTES) {
      if (st.api) await gate.limitByAddress({ name: "head", limit: UNKNOWN_API_LIMIT, clientIp: clientIp(request), headers });
      throw appError("request_header_too_large", { message: `The request's address and headers must be under ${MAX_HEAD_BYTES} bytes.` });
    }
    if (!st.api) {
      if (st.path.startsWith("/owner/")) refuseUnstorable(queryOf(st.query));
      return;
    }
    const limit = st.endpoint ? endpoints[st.endpoint].limit : UNKNOWN_API_LIMIT;
    if (request.method === "OPTIONS") {
      Object.assign(headers, { "access-control-allow-origin": CORS_ORIGIN, "access-control-expose-headers": CORS_EXPOSE }, CORS_PREFLIGHT);
      await gate.limitByAddress({ name: st.endpoint ?? "api", limit, clientIp: clientIp(request), headers, peek: true });
      return new Response(null, { status: 204, headers });
    }
    // Unknown /api paths (404s, dot-segment tricks) are counted by address and carry the headers too.
    if (!st.endpoint) return await gate.limitByAddress({ name: "api", limit, clientIp: clientIp(request), headers });
    // A key in a form field is for small bodies: a larger one without a header key is refused unread.
    if (!hasFormBody(request) || extractKey(request.headers, st.query) !== null) {
      const waiting = run(request, headers);
      if (waiting) await waiting;
    } else if (declaredLength(request) > opts.maxBodyBytes) {
      try {
        await run(request, headers);
      } catch (e) {
        if (isAppError(e) && e.code === "bad_key") {
          throw appError("bad_key", {
            message: `Send the API key in the Authorization or X-API-KEY header with a body over ${opts.maxBodyBytes} bytes.`,
          });
        }
        throw e;
      }
    }
    // NUL and unpaired surrogates are refused at the edge, on every engine (the body's in the body plugin)
    if (st.query !== "") refuseUnstorable(queryOf(st.query));
  });
  return { plugin, run };
}
