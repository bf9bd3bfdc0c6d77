import { type AppError, appError } from "../../errors/index.ts";
import { type Cidr, clientAddress, parseCidr } from "../../net/cidr.ts";
import type { Account, Deployment, KeyContext, RateDecision, RateLimitStore } from "../../store/contract/index.ts";
import { documentRefusal, ipAllowed } from "./document-access.ts";
import { type EndpointName, endpoints } from "./endpoints.ts";

/** A request the gate let through: its endpoint, and the key's deployment and owner (the client's address: RequestStates). */
export interface GateResult {
  endpoint: EndpointName;
  deployment: Deployment;
  account: Account;
}

/**
 * Where the key comes from, in order of precedence: `Authorization: Bearer`, then `X-API-KEY`, then the
 * `api_key` query parameter, then the `api_key` form/JSON field. The first one present is used; the others
 * are ignored (a wrong header is not rescued by a right query parameter).
 */
/** The token of `Bearer <token>` (any case, any spacing), without a regular expression: this runs on every request. */
function bearerToken(auth: string | null): string | null {
  if (!auth) return null;
  const a = auth.trim();
  if (a.length < 8 || a.slice(0, 6).toLowerCase() !== "bearer") return null;
  const code = a.charCodeAt(6);
  if (code !== 32 && code !== 9) return null;
  return a.slice(7).trim() || null;
}

export function extractKey(headers: Headers, query: string, bodyKey?: unknown): string | null {
  const bearer = bearerToken(headers.get("authorization"));
  if (bearer) return bearer;
  const x = headers.get("x-api-key");
  if (x) return x.trim();
  const q = query.includes("api_key") ? new URLSearchParams(query).get("api_key") : null;
  if (q) return q;
  return typeof bodyKey === "string" && bodyKey ? bodyKey : null;
}

export function createGate(deps: {
  /** an API key → its key, deployment and owner (null: not a key of any deployment) */
  resolveKey: (key: string) => Promise<KeyContext | null>;
  /** the same when it is known at once; undefined when it must be awaited */
  resolveKeyNow: (key: string) => KeyContext | null | undefined;
  limiter: RateLimitStore;
  trustedProxies: string[];
  limitScale?: number;
}) {
  const scale = deps.limitScale ?? 1;
  const scaled = (limit: number) => Math.max(1, Math.round(limit * scale));
  const limits = new Map(Object.entries(endpoints).map(([name, e]) => [name, scaled(e.limit)]));
  /** judgedFor's memo (declared before the returned methods use it) */
  const perKey = new WeakMap<KeyContext, Map<EndpointName, Judged>>();
  const trusted = deps.trustedProxies.map(parseCidr).filter((c): c is Cidr => c !== null);
  return {
    clientIp(socketIp: string, forwardedFor: string | null): string {
      return clientAddress(socketIp, forwardedFor, trusted);
    },
    /**
     * Counts a request that reaches no endpoint (an unknown /api path, an oversized head) against its address,
     * so it carries rate-limit headers too; `peek` reports without counting (CORS preflights). Like `check`, it
     * answers at once (no promise) when the limit can be had without waiting.
     */
    limitByAddress(input: {
      name: string;
      limit: number;
      clientIp: () => string;
      headers: Record<string, string | number>;
      peek?: boolean;
    }): void | Promise<void> {
      const identity = `${input.name}|ip:${input.clientIp()}`;
      const limit = scaled(input.limit);
      const report = (decision: RateDecision): void => {
        input.headers["x-ratelimit-limit"] = String(decision.limit);
        input.headers["x-ratelimit-remaining"] = String(decision.remaining);
        if (!decision.allowed && !input.peek)
          throw appError("rate_limited", { headers: { "retry-after": String(decision.retryAfterSeconds) } });
      };
      if (input.peek) return deps.limiter.peek(identity, limit).then(report);
      const decision = deps.limiter.hitNow(identity, limit);
      if (decision) return report(decision);
      return deps.limiter.hit(identity, limit).then(report);
    },
    /**
     * Authenticates and rate-limits one request. Rate-limit headers are written to `headers` before any
     * failure is thrown, so every answer carries them. Answers at once (no promise) when the key's context and
     * the rate limit can be had without waiting (the store's peek and hitNow): a request that waits for nothing
     * stays on the HTTP server's fast path, where an await costs more than the rest of the gate.
     */
    check(input: GateInput): GateResult | Promise<GateResult> {
      const ctx = input.key ? deps.resolveKeyNow(input.key) : null;
      if (ctx === undefined) return checkSlowly(input);
      const judged = judge(input, ctx);
      const decision = deps.limiter.hitNow(judged.identity, limits.get(input.endpoint) as number);
      if (decision) return conclude(input, decision, judged);
      return deps.limiter.hit(judged.identity, limits.get(input.endpoint) as number).then((d) => conclude(input, d, judged));
    },
    /**
     * The same judgement for a local client of one deployment (`docchat mcp` over stdio), given the deployment's key
     * context instead of a key: the key must exist and be enabled, and the process counts as a client at `clientIp`.
     */
    async checkLocal(input: {
      endpoint: EndpointName;
      context: KeyContext | null;
      clientIp: string;
      headers: Record<string, string | number>;
    }): Promise<GateResult> {
      const local: GateInput = { endpoint: input.endpoint, key: null, clientIp: () => input.clientIp, headers: input.headers };
      const judged = judge(local, input.context);
      return conclude(local, await deps.limiter.hit(judged.identity, limits.get(input.endpoint) as number), judged);
    },
  };

  async function checkSlowly(input: GateInput): Promise<GateResult> {
    const ctx = input.key ? await deps.resolveKey(input.key) : null;
    const judged = judge(input, ctx);
    return conclude(input, await deps.limiter.hit(judged.identity, limits.get(input.endpoint) as number), judged);
  }

  /**
   * What a key may do on each endpoint, worked out once per key context (the store hands out the same object
   * while nothing changed): the common request, from an allowed address to any endpoint but documents, then
   * costs no allocation and no string building.
   */
  function judgedFor(ctx: KeyContext, endpoint: EndpointName): Judged {
    const byEndpoint = perKey.get(ctx) ?? new Map<EndpointName, Judged>();
    if (byEndpoint.size === 0) perKey.set(ctx, byEndpoint);
    const known = byEndpoint.get(endpoint);
    if (known) return known;
    const judged: Judged = {
      identity: `${endpoint}|k:${ctx.deployment.id}`,
      refusal: refusalOf(ctx, endpoint),
      result: { endpoint, deployment: ctx.deployment, account: ctx.account },
    };
    byEndpoint.set(endpoint, judged);
    return judged;
  }

  /** Who the request counts against, and what it gets once the limit allows it (its result, or its refusal). */
  function judge(input: GateInput, ctx: KeyContext | null): Judged {
    const { endpoint, clientIp } = input;
    if (ctx && endpoint !== "v1.documents" && ctx.deployment.ipAllow.length === 0) return judgedFor(ctx, endpoint);
    const refusal =
      ctx && endpoint === "v1.documents"
        ? documentRefusal(ctx.deployment, { method: input.method ?? "GET", path: input.path ?? "", clientIp: clientIp() })
        : null;
    // A caller outside the allow-list (or refused the document operation) is limited by its own address, never
    // in the deployment's bucket, so a leaked key used from elsewhere cannot use up the allowed clients' budget.
    const allowedIp = ctx !== null && (ctx.deployment.ipAllow.length === 0 || ipAllowed(ctx.deployment.ipAllow, clientIp()));
    if (ctx && allowedIp && !refusal) return judgedFor(ctx, endpoint);
    return {
      identity: `${endpoint}|ip:${clientIp()}`,
      refusal: ctx ? refusalOf(ctx, endpoint, allowedIp, refusal) : appError("bad_key"),
      result: null,
    };
  }

  /** The key's refusal on this endpoint (null: it may proceed), its reasons checked in this order. */
  function refusalOf(ctx: KeyContext, endpoint: EndpointName, allowedIp = true, documents: AppError | null = null): AppError | null {
    if (ctx.key.disabled) return appError("bad_key");
    if (ctx.account.disabled) return appError("account_disabled");
    if (!ctx.deployment.published) return appError("not_published");
    if (!allowedIp) return appError("ip_restricted");
    if (documents) return documents;
    // Usable once training has completed at least once; a re-train in progress keeps serving the last index.
    const trained = ctx.deployment.trainingStatus === "completed" || ctx.deployment.trainedAt !== null;
    // A Private GPT deployment answers from its persona alone: it has no documents to train.
    if (endpoints[endpoint].trained && !trained && ctx.deployment.kind !== "private_gpt") return appError("not_trained");
    return null;
  }

  /** The rate-limit headers on every answer, then the limit's refusal, the key's, or the result. */
  function conclude(input: GateInput, decision: RateDecision, judged: Judged): GateResult {
    input.headers["x-ratelimit-limit"] = String(decision.limit);
    input.headers["x-ratelimit-remaining"] = String(decision.remaining);
    if (!decision.allowed) throw appError("rate_limited", { headers: { "retry-after": String(decision.retryAfterSeconds) } });
    if (judged.refusal || !judged.result) throw judged.refusal ?? appError("bad_key");
    return judged.result;
  }
}

interface Judged {
  identity: string;
  refusal: AppError | null;
  result: GateResult | null;
}

interface GateInput {
  endpoint: EndpointName;
  key: string | null;
  clientIp: () => string;
  headers: Record<string, string | number>;
  method?: string;
  path?: string;
}

export type Gate = ReturnType<typeof createGate>;
