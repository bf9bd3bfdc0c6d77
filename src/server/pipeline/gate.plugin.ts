import { Elysia } from "elysia";
import { appError, isAppError } from "../../errors/index.ts";
import { endpoints } from "./endpoints.ts";
import { extractKey, type Gate } from "./gate.ts";
import { MAX_HEAD_BYTES } from "./head-limit.ts";
import type { RequestState, RequestStates } from "./request-state.ts";
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

/** The refusal of a form-field key too large to read: it names the headers that can carry the key instead. */
function largeFormRefusal(e: unknown, maxBodyBytes: number): unknown {
  if (!isAppError(e) || e.code !== "bad_key") return e;
  return appError("bad_key", {
    message: `Send the API key in the Authorization or X-API-KEY header with a body over ${maxBodyBytes} bytes.`,
  });
}

function headTooLarge(): never {
  throw appError("request_header_too_large", { message: `The request's address and headers must be under ${MAX_HEAD_BYTES} bytes.` });
}

function preflightAnswer(_request: Request, headers: Record<string, string | number>): Response {
  return new Response(null, { status: 204, headers: headers as Record<string, string> });
}

/** What the hook still does once the gate has decided: nothing more, answer at once (a preflight), or throw. */
type Next = NonNullable<RequestState["resume"]>["next"];

function nothing(): undefined {
  return undefined;
}

/**
 * The gate as a part of the pipeline. Visitor endpoints (/api/*) are gated when the request arrives, before any
 * body is read, so that even a 413 or a malformed body carries rate-limit headers and counts against the limit.
 * Only when the key may arrive in a form field (no header or query key) is the gate run after parsing (`run`,
 * called by the body plugin). Requests outside /api pass through untouched.
 *
 * The hook is synchronous: when the key's context and the limit are at hand (SQLite) a request takes no await,
 * which costs more than the rest of the gate. Elysia decides from a hook's source whether to await it (`async`,
 * `await`, or a `return f(…)` or `=> f(…)` anywhere in it makes it awaited, after Bun's transpiler has folded
 * `const x = f(); return x;` into `return f()`), so the hook itself is two lines. When the gate must wait (a key
 * or a limit the store has to be asked for: PostgreSQL), the hook answers with a promise of the whole response:
 * once the gate has decided, the same request is handled again from the top (`handleAgain`), where the hook
 * picks up with the headers written so far and either lets it through, answers or throws the refusal — so every
 * answer still takes Elysia's one path through routing, validation, handlers and the error hook.
 */
export function gatePlugin(
  state: RequestStates,
  gate: Gate,
  opts: { maxBodyBytes: number; handleAgain: (request: Request) => Promise<Response> },
) {
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

  /** `run` for a form body over the limit without a header key: a missing key is refused with where to send it. */
  function runForLargeForm(request: Request, headers: Record<string, string | number>): Promise<void> | undefined {
    try {
      return run(request, headers)?.catch((e: unknown) => {
        throw largeFormRefusal(e, opts.maxBodyBytes);
      });
    } catch (e) {
      throw largeFormRefusal(e, opts.maxBodyBytes);
    }
  }

  /** NUL and unpaired surrogates are refused at the edge, on every engine (the body's in the body plugin). */
  function checkQuery(request: Request): undefined {
    const { query } = state.get(request);
    if (query !== "") refuseUnstorable(queryOf(query));
    return undefined;
  }

  /**
   * The response once `waiting` settles: the request handled again, the hook resuming at `next`. `set.headers`
   * is handed over and left empty, or Elysia would merge it into the finished response (copying its body).
   */
  function onceDecided(
    request: Request,
    set: { headers: Record<string, string | number> },
    waiting: Promise<unknown>,
    next: Next,
  ): Promise<Response> {
    const st = state.get(request);
    const headers = set.headers;
    set.headers = {};
    const resumeWith = (then: Next) => {
      st.resume = { headers, next: then };
    };
    return waiting
      .then(
        () => resumeWith(next),
        (e: unknown) =>
          resumeWith(() => {
            throw e;
          }),
      )
      .then(() => opts.handleAgain(request));
  }

  /** The gate as the request arrives: nothing (let it through), an answer, or the promise of one (see above). */
  function arrive(request: Request, set: { headers: Record<string, string | number> }): Response | Promise<Response> | undefined {
    const st = state.get(request);
    const headers = set.headers;
    const resume = st.resume;
    if (resume) {
      st.resume = undefined;
      Object.assign(headers, resume.headers);
      return resume.next(request, headers);
    }
    // CORS is for browsers, which always send Origin across origins: other callers are spared the headers
    if (st.api && request.headers.get("origin") !== null) {
      headers["access-control-allow-origin"] = CORS_ORIGIN;
      headers["access-control-expose-headers"] = CORS_EXPOSE;
    }
    if (headBytes(request) > MAX_HEAD_BYTES) {
      const counted = st.api
        ? gate.limitByAddress({ name: "head", limit: UNKNOWN_API_LIMIT, clientIp: clientIp(request), headers })
        : undefined;
      if (counted) return onceDecided(request, set, counted, headTooLarge);
      headTooLarge();
    }
    if (!st.api) {
      if (st.path.startsWith("/owner/")) refuseUnstorable(queryOf(st.query));
      return;
    }
    const limit = st.endpoint ? endpoints[st.endpoint].limit : UNKNOWN_API_LIMIT;
    if (request.method === "OPTIONS") {
      Object.assign(headers, { "access-control-allow-origin": CORS_ORIGIN, "access-control-expose-headers": CORS_EXPOSE }, CORS_PREFLIGHT);
      const peeked = gate.limitByAddress({ name: st.endpoint ?? "api", limit, clientIp: clientIp(request), headers, peek: true });
      return onceDecided(request, set, peeked ?? Promise.resolve(), preflightAnswer);
    }
    // Unknown /api paths (404s, dot-segment tricks) are counted by address and carry the headers too.
    if (!st.endpoint) {
      const counted = gate.limitByAddress({ name: "api", limit, clientIp: clientIp(request), headers });
      return counted ? onceDecided(request, set, counted, nothing) : undefined;
    }
    // A key in a form field is for small bodies: a larger one without a header key is refused unread.
    let waiting: Promise<void> | undefined;
    if (!hasFormBody(request) || extractKey(request.headers, st.query) !== null) waiting = run(request, headers);
    else if (declaredLength(request) > opts.maxBodyBytes) waiting = runForLargeForm(request, headers);
    if (waiting) return onceDecided(request, set, waiting, checkQuery);
    return checkQuery(request);
  }

  // Written so that Elysia reads it as synchronous (see above): no call after a `return`.
  const plugin = new Elysia({ name: "gate" }).onRequest(({ request, set }) => {
    const answer = arrive(request, set);
    if (answer) return answer;
  });
  return { plugin, run };
}
