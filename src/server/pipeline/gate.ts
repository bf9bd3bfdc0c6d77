import { appError } from "../../errors/index.ts";
import { type Cidr, clientAddress, parseCidr } from "../../net/cidr.ts";
import type { Account, Deployment, KeyContext, RateLimitStore } from "../../store/contract/index.ts";
import { documentRefusal, ipAllowed } from "./document-access.ts";
import { type EndpointName, endpoints } from "./endpoints.ts";

export interface GateResult {
  endpoint: EndpointName;
  deployment: Deployment;
  account: Account;
  /** the client's address (worked out on first use) */
  clientIp: () => string;
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
  limiter: RateLimitStore;
  trustedProxies: string[];
  limitScale?: number;
}) {
  const scale = deps.limitScale ?? 1;
  const scaled = (limit: number) => Math.max(1, Math.round(limit * scale));
  const limits = new Map(Object.entries(endpoints).map(([name, e]) => [name, scaled(e.limit)]));
  const trusted = deps.trustedProxies.map(parseCidr).filter((c): c is Cidr => c !== null);
  /** The gate's judgement of a caller whose key (or deployment) resolved to `ctx` (null: no such key). */
  async function verdict(
    ctx: KeyContext | null,
    input: { endpoint: EndpointName; clientIp: () => string; headers: Record<string, string | number>; method?: string; path?: string },
  ): Promise<GateResult> {
    const { endpoint, clientIp } = input;
    const refusal =
      ctx && endpoint === "v1.documents"
        ? documentRefusal(ctx.deployment, { method: input.method ?? "GET", path: input.path ?? "", clientIp: clientIp() })
        : null;
    // A caller outside the allow-list (or refused the document operation) is limited by its own address, never
    // in the deployment's bucket, so a leaked key used from elsewhere cannot use up the allowed clients' budget.
    const allowedIp = ctx !== null && (ctx.deployment.ipAllow.length === 0 || ipAllowed(ctx.deployment.ipAllow, clientIp()));
    const blocked = ctx !== null && (!allowedIp || refusal !== null);
    const identity = ctx && !blocked ? `${endpoint}|k:${ctx.deployment.id}` : `${endpoint}|ip:${clientIp()}`;
    const decision = await deps.limiter.hit(identity, limits.get(endpoint) as number);
    input.headers["x-ratelimit-limit"] = String(decision.limit);
    input.headers["x-ratelimit-remaining"] = String(decision.remaining);
    if (!decision.allowed) throw appError("rate_limited", { headers: { "retry-after": String(decision.retryAfterSeconds) } });
    if (!ctx || ctx.key.disabled) throw appError("bad_key");
    if (ctx.account.disabled) throw appError("account_disabled");
    if (!ctx.deployment.published) throw appError("not_published");
    if (!allowedIp) throw appError("ip_restricted");
    if (refusal) throw refusal;
    // Usable once training has completed at least once; a re-train in progress keeps serving the last index.
    const trained = ctx.deployment.trainingStatus === "completed" || ctx.deployment.trainedAt !== null;
    // A Private GPT deployment answers from its persona alone: it has no documents to train.
    if (endpoints[endpoint].trained && !trained && ctx.deployment.kind !== "private_gpt") throw appError("not_trained");
    return { endpoint, deployment: ctx.deployment, account: ctx.account, clientIp };
  }

  return {
    clientIp(socketIp: string, forwardedFor: string | null): string {
      return clientAddress(socketIp, forwardedFor, trusted);
    },
    /**
     * Counts a request that reaches no endpoint (an unknown /api path, an oversized head) against its address,
     * so it carries rate-limit headers too; `peek` reports without counting (CORS preflights).
     */
    async limitByAddress(input: {
      name: string;
      limit: number;
      clientIp: () => string;
      headers: Record<string, string | number>;
      peek?: boolean;
    }): Promise<void> {
      const identity = `${input.name}|ip:${input.clientIp()}`;
      const limit = scaled(input.limit);
      const decision = input.peek ? await deps.limiter.peek(identity, limit) : await deps.limiter.hit(identity, limit);
      input.headers["x-ratelimit-limit"] = String(decision.limit);
      input.headers["x-ratelimit-remaining"] = String(decision.remaining);
      if (!decision.allowed && !input.peek)
        throw appError("rate_limited", { headers: { "retry-after": String(decision.retryAfterSeconds) } });
    },
    /**
     * Authenticates and rate-limits one request. Rate-limit headers are written to `headers` before any
     * failure is thrown, so every answer carries them.
     */
    async check(input: {
      endpoint: EndpointName;
      key: string | null;
      clientIp: () => string;
      headers: Record<string, string | number>;
      method?: string;
      path?: string;
    }): Promise<GateResult> {
      const ctx = input.key ? await deps.resolveKey(input.key) : null;
      return verdict(ctx, input);
    },
    /**
     * The same judgement for a local client of one deployment (`docchat mcp` over stdio), given the deployment's key
     * context instead of a key: the key must exist and be enabled, and the process counts as a client at `clientIp`.
     */
    checkLocal(input: {
      endpoint: EndpointName;
      context: KeyContext | null;
      clientIp: string;
      headers: Record<string, string | number>;
    }): Promise<GateResult> {
      return verdict(input.context, { ...input, clientIp: () => input.clientIp });
    },
  };
}

export type Gate = ReturnType<typeof createGate>;
