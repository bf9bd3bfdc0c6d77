import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer } from "../../src/server/create-server.ts";
import { PUBLIC_OPENAPI_PATH, publicOperations } from "../../src/server/openapi/public-openapi.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

type Spec = {
  openapi: string;
  paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, unknown> }; responses: Record<string, unknown>; security: unknown[] }>
  >;
};

const fetchSpec = async () => {
  const r = await fetch(`${server.url}${PUBLIC_OPENAPI_PATH}`);
  expect(r.status).toBe(200);
  return (await r.json()) as Spec;
};

describe("the public API's OpenAPI document", () => {
  test("is served at /api/v1/openapi.json without a key, as OpenAPI 3.1", async () => {
    const spec = await fetchSpec();
    expect(spec.openapi).toBe("3.1.0");
    expect(Object.keys(spec.paths)).toContain("/api/v1/responses");
  });

  test("documents the document push endpoint with its JSON and multipart bodies and its 200/202/201 outcomes", async () => {
    const push = (await fetchSpec()).paths["/api/v1/documents"]?.post;
    expect(Object.keys(push?.requestBody?.content ?? {}).sort()).toEqual(["application/json", "multipart/form-data"]);
    expect(Object.keys(push?.responses ?? {})).toEqual(expect.arrayContaining(["200", "201", "202"]));
  });

  test("lists exactly the public routes the server registers (so it cannot drift from the code)", async () => {
    const spec = await fetchSpec();
    const documented = new Set(
      Object.entries(spec.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\/$/, "")}`)),
    );
    const app = createServer(server.services) as unknown as { routes: { method: string; path: string }[] };
    const registered = new Set(
      app.routes
        .filter((r) => r.path.startsWith("/api/") && r.path !== PUBLIC_OPENAPI_PATH)
        .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}").replace(/\/$/, "")}`),
    );
    expect([...documented].sort()).toEqual([...registered].sort());
  });

  test("is built from the routes: a public route registered without its doc is refused, not left out", () => {
    expect(() =>
      publicOperations([{ method: "POST", path: "/api/v1/chat/completions", hooks: { detail: { summary: "undocumented" } } }]),
    ).toThrow("POST /api/v1/chat/completions: a public route needs its publicDoc");
    expect(publicOperations([{ method: "GET", path: "/health" }])).toEqual([]);
  });

  test("is a valid OpenAPI 3.1 document (swagger-parser's validator)", async () => {
    const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
    await SwaggerParser.validate((await fetchSpec()) as never);
  });

  test("every operation names the key as its security and every $ref resolves", async () => {
    const spec = await fetchSpec();
    for (const ops of Object.values(spec.paths)) for (const op of Object.values(ops)) expect(op.security.length).toBeGreaterThan(0);
    const refs = [...JSON.stringify(spec).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]);
    const schemas = (spec as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas;
    for (const ref of refs) expect(schemas[ref!]).toBeDefined();
  });
});

describe("real answers match the documented response schemas", () => {
  test("models, a chat completion, a Responses API response and a document push validate against the OpenAPI schemas", async () => {
    const { Value } = await import("@sinclair/typebox/value");
    const schemas = await import("../../src/server/openapi/public-schemas.ts");
    const seeded = await server.seed();
    const auth = { authorization: `Bearer ${seeded.apiKey}`, "content-type": "application/json" };
    const push = await fetch(`${server.url}/api/v1/documents`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "faq.txt", content: "Refunds are possible within 30 days of purchase for annual plans." }),
    });
    expect(push.status).toBe(200);
    const check = (schema: object, value: unknown) =>
      expect([...Value.Errors(schema as never, value)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
    check(schemas.documentSchema, await push.json());
    check(schemas.modelListSchema, await (await fetch(`${server.url}/api/v1/models`, { headers: auth })).json());
    const chat = await fetch(`${server.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "Can annual plans be refunded?" }] }),
    });
    check(schemas.chatCompletionSchema, await chat.json());
    const resp = await fetch(`${server.url}/api/v1/responses`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ model: "m", input: "Can annual plans be refunded?" }),
    });
    check(schemas.responseSchema, await resp.json());
  });
});

describe("the OpenAPI route under hostile input", () => {
  test("answers the same document whatever the query string or credentials carry", async () => {
    for (const q of ["?api_key=%ff%fe", "?api_key=%00", "?%zz=%", `?x=${"k".repeat(8192)}`]) {
      const r = await fetch(`${server.url}${PUBLIC_OPENAPI_PATH}${q}`, { headers: { authorization: "Bearer \u00ff\u00fe" } });
      expect(r.status).toBe(200);
      expect(((await r.json()) as Spec).openapi).toBe("3.1.0");
    }
  });
});
