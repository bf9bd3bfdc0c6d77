/**
 * Hostile input against a real server, on every /api route that exists when the test runs (read from the app's
 * route table): malformed JSON, deep nesting, invalid UTF-8, oversize bodies with and without Content-Length,
 * wrong types, non-object JSON, unknown content types and NUL bytes. Every answer must be a client error in the
 * documented shape — never a 500 — and the server must still answer afterwards.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer } from "../../src/server/create-server.ts";
import { PUBLIC_OPENAPI_PATH } from "../../src/server/openapi/public-openapi.ts";
import { endpointFor, isNative } from "../../src/server/pipeline/endpoints.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const LIMIT = 16 * 1024;
let server: TestServer;
let apiKey = "";
let routes: { method: string; path: string }[] = [];

beforeAll(async () => {
  server = await startTestServer({
    DOCCHAT_MAX_BODY_BYTES: String(LIMIT),
    DOCCHAT_MAX_UPLOAD_BYTES: String(LIMIT),
    DOCCHAT_RATE_LIMIT_SCALE: "1000",
  });
  const seeded = await server.seed();
  apiKey = seeded.apiKey;
  // Trained, so chat endpoints get past the gate and really parse their bodies.
  await server.services.repos.deployments.setTrainingStatus(seeded.deploymentId, "completed");
  routes = createServer(server.services)
    // The OpenAPI document is public (no key, nothing to attack); its own test covers it.
    .routes.filter((r) => r.path.startsWith("/api/") && r.method !== "OPTIONS" && r.path !== PUBLIC_OPENAPI_PATH)
    .map((r) => ({ method: r.method, path: r.path.replace(/:[A-Za-z_]+/g, "doc_does_not_exist") }));
});
afterAll(async () => {
  await server?.stop();
});

/**
 * `wellFormed`: a JSON object with wrong field types. An endpoint that ignores those fields (the widget config,
 * the FAQ) may accept it (2xx); every other payload is invalid for every endpoint and must be a client error.
 */
type Payload = { name: string; body: BodyInit | (() => BodyInit); type?: string; length?: boolean; wellFormed?: boolean };

const enc = new TextEncoder();
const big = (n: number) => enc.encode(`{"text":"${"x".repeat(n)}"}`);
function chunked(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const piece = enc.encode("y".repeat(4096));
      sent += piece.byteLength;
      controller.enqueue(piece);
    },
  });
}

const payloads: Payload[] = [
  { name: "malformed JSON", body: '{"model": "x", "messages": [', type: "application/json" },
  { name: "malformed JSON without a content type", body: "{oops" },
  { name: "deeply nested arrays", body: `${"[".repeat(50_000)}${"]".repeat(50_000)}`, type: "application/json" },
  { name: "deeply nested objects", body: `${'{"a":'.repeat(2_000)}1${"}".repeat(2_000)}`, type: "application/json" },
  {
    name: "invalid UTF-8",
    body: new Uint8Array([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
    type: "application/json",
  },
  { name: "invalid UTF-8 in a form", body: new Uint8Array([0x61, 0x3d, 0xff, 0xfe]), type: "application/x-www-form-urlencoded" },
  { name: "oversize body with Content-Length", body: () => big(LIMIT * 4), type: "application/json", length: true },
  { name: "oversize chunked body without Content-Length", body: () => chunked(LIMIT * 8), type: "application/json" },
  {
    name: "oversize multipart body",
    body: () => {
      const f = new FormData();
      f.append("file", new Blob([new Uint8Array(LIMIT * 4)]), "big.pdf");
      return f;
    },
  },
  {
    name: "wrong types",
    body: JSON.stringify({
      model: 5,
      messages: "hello",
      stream: "yes",
      temperature: "hot",
      max_tokens: [],
      chat_log_id: {},
      feedback: "great",
      text: 7,
      title: [],
      file: 1,
      name: {},
      email: 3,
      question: [],
    }),
    type: "application/json",
    wellFormed: true,
  },
  {
    name: "messages with wrong element types",
    body: JSON.stringify({ model: "m", messages: [1, null, { role: 7, content: {} }] }),
    type: "application/json",
    wellFormed: true,
  },
  { name: "a JSON array", body: "[]", type: "application/json" },
  { name: "a JSON string", body: '"hello"', type: "application/json" },
  { name: "a JSON number", body: "42", type: "application/json" },
  { name: "JSON null", body: "null", type: "application/json" },
  { name: "an unknown content type", body: "<a/>", type: "application/xml" },
  { name: "binary with an image content type", body: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), type: "image/png" },
  { name: "multipart without a boundary", body: "--x\r\n\r\n", type: "multipart/form-data" },
  { name: "multipart with a broken body", body: "garbage", type: "multipart/form-data; boundary=zzz" },
  { name: "raw NUL bytes", body: new Uint8Array([0x7b, 0x00, 0x7d, 0x00]), type: "application/json" },
  {
    name: "NUL characters inside strings",
    body: JSON.stringify({ model: "\u0000", messages: [{ role: "user\u0000", content: 5 }], text: 5, chat_log_id: "\u0000" }),
    type: "application/json",
    wellFormed: true,
  },
];

interface Failure {
  route: string;
  payload: string;
  status: number;
  body: string;
}

/** A client error in the route family's shape; the native family may keep its legacy 200 + {error} answers. */
function check(route: { method: string; path: string }, payload: string, status: number, text: string, wellFormed = false): Failure | null {
  const fail = { route: `${route.method} ${route.path}`, payload, status, body: text.slice(0, 300) };
  const endpoint = endpointFor(route.path);
  const native = endpoint ? isNative(endpoint) : route.path.startsWith("/api/") && !route.path.startsWith("/api/v1/");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail;
  }
  const err = (json as { error?: unknown }).error;
  if (wellFormed && status >= 200 && status < 300) return null;
  if (native) {
    const legacy = typeof err === "string" && (status === 200 || (status >= 400 && status < 500));
    const current = status >= 400 && status < 500 && typeof (err as { code?: unknown })?.code === "string";
    return legacy || current ? null : fail;
  }
  if (status < 400 || status >= 500) return fail;
  // The MCP endpoint answers in JSON-RPC: the status as the error's code, the stable code in its data.
  if (endpoint === "mcp") {
    const e = err as { code?: unknown; message?: unknown; data?: { code?: unknown } } | undefined;
    const rpc = (json as { jsonrpc?: unknown }).jsonrpc === "2.0" && e?.code === status && typeof e.message === "string";
    return rpc && typeof e?.data?.code === "string" ? null : fail;
  }
  const e = err as { message?: unknown; type?: unknown; code?: unknown } | undefined;
  return typeof e?.message === "string" && typeof e.type === "string" && typeof e.code === "string" ? null : fail;
}

async function send(route: { method: string; path: string }, p: Payload): Promise<{ status: number; text: string }> {
  const body = typeof p.body === "function" ? p.body() : p.body;
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (p.type) headers["content-type"] = p.type;
  if (p.length && body instanceof Uint8Array) headers["content-length"] = String(body.byteLength);
  const res = await fetch(`${server.url}${route.path}`, { method: route.method, headers, body });
  return { status: res.status, text: await res.text() };
}

describe("hostile input never produces a 500", () => {
  test("there are /api/v1 routes to attack", () => {
    expect(routes.some((r) => r.path === "/api/v1/models")).toBe(true);
    expect(routes.length).toBeGreaterThan(1);
  });

  test("every body-taking /api route answers every hostile body with a 4xx in the error shape", async () => {
    const failures: Failure[] = [];
    const tooLarge: string[] = [];
    for (const route of routes.filter((r) => !["GET", "HEAD", "DELETE"].includes(r.method))) {
      for (const p of payloads) {
        let r: { status: number; text: string };
        try {
          r = await send(route, p);
        } catch (e) {
          // The server may close an oversize upload before the client finished sending it; that is not a 500.
          if (/oversize/.test(p.name)) continue;
          failures.push({ route: `${route.method} ${route.path}`, payload: p.name, status: 0, body: String(e) });
          continue;
        }
        const f = check(route, p.name, r.status, r.text, p.wellFormed);
        if (f) failures.push(f);
        if (r.status === 413) tooLarge.push(`${route.path} ${p.name}`);
      }
    }
    expect(failures).toEqual([]);
    // The oversize bodies were answered (413), not just dropped.
    for (const name of ["oversize body with Content-Length", "oversize chunked body without Content-Length"]) {
      expect(tooLarge.filter((t) => t.endsWith(name)).length).toBeGreaterThan(0);
    }
  }, 120_000);

  test("every /api route answers hostile query strings and keys with a client error", async () => {
    const queries = ["?api_key=%ff%fe", "?api_key=%00", `?api_key=${"k".repeat(8192)}`, "?%zz=%", "?stream=%00&model[]=1&model[x]=2"];
    const failures: Failure[] = [];
    for (const route of routes) {
      for (const q of queries) {
        const res = await fetch(`${server.url}${route.path}${q}`, {
          method: route.method,
          headers: route.method === "GET" ? {} : { "content-type": "application/json" },
          body: route.method === "GET" || route.method === "DELETE" ? undefined : "{}",
        });
        const text = await res.text();
        const f = check(route, `query ${q.slice(0, 40)}`, res.status, text);
        if (f) failures.push(f);
      }
      const wrongKey = await fetch(`${server.url}${route.path}`, {
        method: route.method,
        headers: { authorization: "Bearer \u00ff\u00fe", "x-api-key": "\u0000".repeat(3) },
      }).catch(() => null);
      if (wrongKey) {
        const f = check(route, "non-ASCII bearer", wrongKey.status, await wrongKey.text());
        if (f) failures.push(f);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  test("the server still answers afterwards", async () => {
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const res = await fetch(`${server.url}/api/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data.length).toBe(1);
  });
});
