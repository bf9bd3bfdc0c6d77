/**
 * Issue 23 (the gate at ≥ 50 % of bare Elysia): routes that only read (GET, HEAD) carry no parse hook, so Elysia
 * composes them as plain functions; routes that take a body keep it, so their bodies are still parsed within
 * their limits and their form-field keys still reach the gate (test/server/gate.test.ts, hostile-input.test.ts).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createServer } from "../../src/server/create-server.ts";
import { startTestServices } from "../helpers/server.ts";

let env: Awaited<ReturnType<typeof startTestServices>>;
beforeAll(async () => {
  env = await startTestServices();
});
afterAll(() => env.close());

test("reads carry no parse hook; every route that takes a body keeps it", async () => {
  const app = createServer(env.services);
  const parses = (r: { hooks: { parse?: unknown } }) => Array.isArray(r.hooks.parse) && r.hooks.parse.length > 0;
  const reads = app.routes.filter((r) => r.method === "GET" || r.method === "HEAD");
  const writes = app.routes.filter((r) => r.method === "POST" || r.method === "PUT" || r.method === "PATCH");
  expect(reads.length).toBeGreaterThan(10);
  expect(writes.length).toBeGreaterThan(10);
  expect(reads.filter(parses).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  expect(writes.filter((r) => !parses(r)).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  // a read still answers through the gate: a key is required, and a valid one is served
  const { apiKey } = await env.services.deployments.create({
    accountId: (await env.services.accounts.create({ email: "reads@example.com", tokens: 1000 })).id,
    name: "Reads",
    kind: "docs",
    published: true,
  });
  expect((await app.handle(new Request("http://127.0.0.1/api/v1/models"))).status).toBe(401);
  const ok = await app.handle(new Request("http://127.0.0.1/api/v1/models", { headers: { authorization: `Bearer ${apiKey}` } }));
  expect(ok.status).toBe(200);
  expect(((await ok.json()) as { object: string }).object).toBe("list");
});
