import { type EndpointName, endpointFor, endpoints } from "../pipeline/endpoints.ts";
import { type PublicDoc, publicDocOf } from "./public-doc.ts";
import { errorSchema, jsonRpcErrorSchema } from "./public-schemas.ts";

export const PUBLIC_OPENAPI_PATH = "/api/v1/openapi.json";

type Schema = object;
type Json = Record<string, unknown>;

const isCoercedString = (s: unknown) => {
  const x = s as Json;
  return x?.type === "string" && (x.format === "integer" || x.format === "numeric");
};

/**
 * Plain JSON Schema: TypeBox's symbol keys vanish in JSON; its custom `error` messages are not JSON Schema; and
 * Elysia's t.Integer/t.Numeric add a numeric-string alternative (for query coercion) that a JSON client never sends.
 */
function plain(schema: Schema): Json {
  return JSON.parse(
    JSON.stringify(schema, (k, v) => {
      if (k === "error" && typeof v === "string") return undefined;
      if (v && typeof v === "object" && Array.isArray((v as Json).anyOf)) {
        const { anyOf, ...rest } = v as Json & { anyOf: unknown[] };
        const kept = anyOf.filter((a) => !isCoercedString(a));
        if (kept.length === 1) return { ...(kept[0] as Json), ...rest };
        return { ...rest, anyOf: kept };
      }
      return v;
    }),
  );
}

/** One documented operation: a registered public route and its doc (public-doc.ts). */
interface Op extends PublicDoc {
  method: string;
  path: string;
  endpoint: EndpointName;
  pathParams: string[];
}

/** A route as Elysia lists it (`app.routes`). */
export interface RegisteredRoute {
  method: string;
  path: string;
  hooks?: { detail?: unknown };
}

/**
 * The operations of the public API, one per registered /api route (the native family's two spellings, with and
 * without the trailing slash, are one operation, documented with it). A public route without a doc is an error:
 * the document cannot leave out what the server answers.
 */
export function publicOperations(routes: RegisteredRoute[]): Op[] {
  const ops = new Map<string, Op>();
  for (const r of routes) {
    if (!r.path.startsWith("/api/") || r.path === PUBLIC_OPENAPI_PATH) continue;
    const doc = publicDocOf(r.hooks?.detail);
    const endpoint = endpointFor(r.path.replace(/:(\w+)/g, "x"));
    if (!doc || !endpoint) throw new Error(`${r.method} ${r.path}: a public route needs its publicDoc (and a gated endpoint)`);
    const path = r.path.replace(/:(\w+)/g, "{$1}");
    const key = `${r.method} ${path.replace(/\/$/, "")}`;
    const known = ops.get(key);
    if (known?.path.endsWith("/")) continue;
    const pathParams = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
    ops.set(key, { ...doc, method: r.method.toLowerCase(), path, endpoint, pathParams });
  }
  return [...ops.values()];
}

function parameters(op: Op): Json[] {
  const out: Json[] = op.pathParams.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }));
  if (op.query) {
    const q = plain(op.query) as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties ?? {}))
      out.push({ name, in: "query", required: q.required?.includes(name) ?? false, schema });
  }
  return out;
}

function requestBody(op: Op): Json | undefined {
  if (!op.body) return undefined;
  const content: Json = {};
  if (op.body.json) content["application/json"] = { schema: plain(op.body.json) };
  if (op.body.multipart) content["multipart/form-data"] = { schema: plain(op.body.multipart) };
  if (op.body.form) content["application/x-www-form-urlencoded"] = { schema: plain(op.body.form) };
  return { required: true, content };
}

function responses(op: Op): Json {
  const out: Json = {};
  const limit = endpoints[op.endpoint].limit;
  const rateHeaders = {
    "X-RateLimit-Limit": { description: `requests allowed per minute (${limit})`, schema: { type: "integer" } },
    "X-RateLimit-Remaining": { description: "requests left in the current minute", schema: { type: "integer" } },
  };
  for (const ok of op.ok) {
    const content: Json = {};
    if (ok.schema) content["application/json"] = { schema: plain(ok.schema) };
    if (ok.sse) content["text/event-stream"] = { schema: plain(ok.sse) };
    out[String(ok.status ?? 200)] = {
      description: ok.description ?? "success",
      headers: rateHeaders,
      ...(Object.keys(content).length ? { content } : {}),
    };
  }
  for (const status of op.errors) {
    out[String(status)] = {
      description: ERROR_TEXT[status] ?? "error",
      headers: rateHeaders,
      content: { "application/json": { schema: { $ref: `#/components/schemas/${op.jsonRpcErrors ? "JsonRpcError" : "Error"}` } } },
    };
  }
  return out;
}

const ERROR_TEXT: Record<number, string> = {
  400: "malformed request (bad_request, naming the field in param)",
  401: "invalid or disabled key, or deployment not published (bad_key, not_published)",
  402: "token balance exhausted (no_tokens)",
  403: "account disabled or address not allowed (account_disabled, ip_restricted)",
  404: "not trained yet, or no such item (not_trained, not_found)",
  405: "method not allowed (method_not_allowed)",
  406: "the Accept header does not allow the response (not_acceptable)",
  409: "handoff not offered for this turn",
  413: "request or file too large",
  415: "unsupported document type or Content-Type (unsupported_document, unsupported_media_type)",
  422: "document unreadable, encrypted or without text",
  429: "rate limited (rate_limited; Retry-After)",
  503: "model busy or unreachable (overloaded, backend_down; Retry-After)",
};

/**
 * The OpenAPI 3.1 document of the public API, served at GET /api/v1/openapi.json (no key needed), built from the
 * routes the server registers and their docs.
 */
export function publicOpenApi(version: string, routes: RegisteredRoute[]) {
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of publicOperations(routes)) {
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      tags: [op.tag],
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      operationId: `${op.method}${op.path.replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
      "x-rate-limit-per-minute": endpoints[op.endpoint].limit,
      // Form posts may also carry the key as an api_key form field (not expressible as a security scheme).
      security: [{ bearer: [] }, { apiKeyHeader: [] }, { apiKeyQuery: [] }],
      ...(parameters(op).length ? { parameters: parameters(op) } : {}),
      ...(requestBody(op) ? { requestBody: requestBody(op) } : {}),
      responses: responses(op),
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "docchat public API",
      version,
      description:
        "Answers questions from an owner's documents. The chat-completions-compatible family lives under /api/v1 (interface version 1.0.0); the native family under /api/. " +
        "Every request carries the deployment's API key: `Authorization: Bearer <key>` (preferred), `X-API-KEY`, or an `api_key` query or form field (in that order of precedence). " +
        "The key alone selects the deployment; answers name it as `model` (the id /api/v1/models lists), whatever the request said. Every response carries X-RateLimit-Limit and X-RateLimit-Remaining; limits are per key and per endpoint. " +
        "Errors are {error: {message, type, code, param?}} with a real HTTP status (docs/errors.md lists the codes). Fields beyond the OpenAI formats " +
        "(conversation_id, sources, search_query, chat_log_id, refused, confidence, chunks) are additive.",
    },
    servers: [{ url: "/" }],
    tags: [
      { name: "Chat completions", description: "OpenAI chat completions format, with sources" },
      { name: "Responses", description: "OpenAI Responses API format" },
      { name: "Models", description: "The deployment as a model" },
      { name: "Documents", description: "Push documents into the deployment" },
      { name: "Widget", description: "What the embeddable widget calls" },
      { name: "Native", description: "The older form-based family (can be switched off with DOCCHAT_NATIVE_API=off)" },
      { name: "MCP", description: "The deployment as a Model Context Protocol server for AI agents (docs/mcp.md)" },
    ],
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "the deployment API key" },
        apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-KEY" },
        apiKeyQuery: { type: "apiKey", in: "query", name: "api_key", description: "for browser EventSource, which cannot set headers" },
      },
      schemas: { Error: plain(errorSchema), JsonRpcError: plain(jsonRpcErrorSchema) },
    },
    paths,
  };
}

export type PublicOpenApi = ReturnType<typeof publicOpenApi>;
