import { randomUUID } from "node:crypto";
import { Elysia } from "elysia";
import { appError } from "../../errors/index.ts";
import { type EndpointName, endpointFor, isNative } from "./endpoints.ts";
import type { GateResult } from "./gate.ts";
import { releaseUpload } from "./upload-body.ts";

/** What the server knows of the connection a request came on (Bun's server). */
export interface SocketInfo {
  requestIP(request: Request): { address: string } | null;
}

export interface RequestState {
  requestId: string;
  started: number;
  /** the request URL's path and query string (without "?"): parsed once, read by every part of the pipeline */
  path: string;
  query: string;
  /** a visitor API path (/api/…): CORS headers, rate limits, the gate */
  api: boolean;
  /** the gated endpoint the path belongs to */
  endpoint?: EndpointName;
  gate?: GateResult;
  /** frees this request's upload slot (once the response is sent) */
  release?: () => void;
  /** the client's address, worked out on first use (most requests never need it) */
  ip?: string;
  /**
   * Where the gate's hook picks up when the request is handled again after the gate waited (gate.plugin.ts): the
   * headers it had written, and what it still does (nothing more, answer at once, or throw the refusal).
   */
  resume?: {
    headers: Record<string, string | number>;
    next: (request: Request, headers: Record<string, string | number>) => Response | undefined;
  };
}

/** Path and query of a request URL without building a URL object. */
function splitUrl(url: string): { path: string; query: string } {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return { path: "/", query: "" };
  const q = url.indexOf("?", start);
  return q < 0 ? { path: url.slice(start), query: "" } : { path: url.slice(start, q), query: url.slice(q + 1) };
}

/**
 * Per-request state keyed by the Request object, so the pipeline's plugins and the handlers share it without
 * globals. `clientAddress` turns the socket's address and X-Forwarded-For into the client's (trusted proxies);
 * `socket` is the listening server (no hook asks Elysia for it: a hook that does makes every route pay for it).
 */
export function createRequestState(opts: {
  clientAddress: (socketIp: string, forwardedFor: string | null) => string;
  socket: () => SocketInfo | null | undefined;
}) {
  const states = new WeakMap<Request, RequestState>();
  const init = (request: Request): RequestState => {
    const { path, query } = splitUrl(request.url);
    const st: RequestState = { requestId: randomUUID(), started: performance.now(), path, query, api: path.startsWith("/api/") };
    states.set(request, st);
    return st;
  };
  return {
    init,
    socket: opts.socket,
    get(request: Request): RequestState {
      return states.get(request) ?? init(request);
    },
    /** The gate's verdict for a gated endpoint; a handler without one is a wiring bug, not a client error. */
    gateOf(request: Request): GateResult {
      const g = states.get(request)?.gate;
      if (!g) throw appError("internal_error");
      return g;
    },
    /**
     * An upload's slot and spool files, freed once its response is sent: the `afterResponse` of the routes that
     * take uploads (the hook runs on their errors too), so no other request pays for an after-response hook.
     */
    finishUpload({ request }: { request: Request }): void {
      const st = states.get(request);
      st?.release?.();
      if (st) st.release = undefined;
      void releaseUpload(request);
    },
    clientIp(request: Request): string {
      const st = this.get(request);
      st.ip ??= opts.clientAddress(opts.socket()?.requestIP(request)?.address ?? "0.0.0.0", request.headers.get("x-forwarded-for"));
      return st.ip;
    },
  };
}

export type RequestStates = ReturnType<typeof createRequestState>;

/**
 * The first part of the pipeline: every request gets its state (request id, parsed path, its gated endpoint)
 * and an X-Request-ID header. With the native family switched off its paths are not gated either: plain 404s.
 * A request handled again after the gate waited (gate.plugin.ts) keeps the state it has, and so its id.
 */
export function requestStatePlugin(state: RequestStates, opts: { nativeApi: boolean }) {
  return new Elysia({ name: "request-state" }).onRequest(({ request, set }) => {
    const st = state.get(request);
    set.headers["x-request-id"] = st.requestId;
    const endpoint = st.api ? endpointFor(st.path) : undefined;
    st.endpoint = endpoint && (opts.nativeApi || !isNative(endpoint)) ? endpoint : undefined;
  });
}
