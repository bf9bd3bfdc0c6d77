import { appError } from "../../errors/index.ts";
import { type Cidr, clientAddress, parseCidr } from "../../net/cidr.ts";
import type { Account, Deployment, KeyContext, RateLimitStore } from "../../store/contract/index.ts";
import { documentRefusal, ipAllowed } from "./document-access.ts";
import { type EndpointName, endpoints } from "./endpoints.ts";

export interface GateResult {
  endpoint: EndpointName;
  deployment: Deployment;
  account: Account;
  clientIp: string;
}

/**
 * Where the key comes from, in order of precedence: `Authorization: Bearer`, then `X-API-KEY`, then the
 * `api_key` query parameter, then the `api_key` form/JSON field. The first one present is used; the others
 * are ignored (a wrong header is not rescued by a right query parameter).
 */
export function extractKey(headers: Headers, url: URL, bodyKey?: unknown): string | null {
  const auth = headers.get("authorization");
  const bearer = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim())?.[1] : undefined;
  if (bearer) return bearer.trim();
  const x = headers.get("x-api-key");
  if (x) return x.trim();
  const q = url.searchParams.get("api_key");
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
  const trusted = deps.trustedProxies.map(parseCidr).filter((c): c is Cidr => c !== null);
  /** The gate's judgement of a caller whose key (or deployment) resolved to `ctx` (null: no such key). */
  async function verdict(
    ctx: KeyContext | null,
    input: { endpoint: EndpointName; clientIp: string; headers: Record<string, string | number>; method?: string; path?: string },
  ): Promise<GateResult> {
    const { endpoint, clientIp } = input;
    const refusal =
      ctx && endpoint === "v1.documents"
        ? documentRefusal(ctx.deployment, { method: input.method ?? "GET", path: input.path ?? "", clientIp })
        : null;
    // A caller outside the allow-list (or refused the document operation) is limited by its own address, never
    // in the deployment's bucket, so a leaked key used from elsewhere cannot use up the allowed clients' budget.
    const allowedIp = ctx !== null && ipAllowed(ctx.deployment.ipAllow, clientIp);
    const blocked = ctx !== null && (!allowedIp || refusal !== null);
    const identity = ctx && !blocked ? `${endpoint}|k:${ctx.deployment.id}` : `${endpoint}|ip:${clientIp}`;
    const decision = await deps.limiter.hit(identity, Math.max(1, Math.round(endpoints[endpoint].limit * scale)));
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
    clientIp(socketIp: string, headers: Headers): string {
      return clientAddress(socketIp, headers.get("x-forwarded-for"), trusted);
    },
    /**
     * Counts a request that reaches no endpoint (an unknown /api path, an oversized head) against its address,
     * so it carries rate-limit headers too; `peek` reports without counting (CORS preflights).
     */
    async limitByAddress(input: {
      name: string;
      limit: number;
      clientIp: string;
      headers: Record<string, string | number>;
      peek?: boolean;
    }): Promise<void> {
      const identity = `${input.name}|ip:${input.clientIp}`;
      const limit = Math.max(1, Math.round(input.limit * scale));
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
      clientIp: string;
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
      return verdict(input.context, input);
    },
  };
}

export type Gate = ReturnType<typeof createGate>;
