/**
 * docs/api.md said `include_chunks` worked on the plain chat endpoint; the spec honours it on the contextual one
 * only. The docs now say so, and the endpoints behave so.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
let key: string;
beforeAll(async () => {
  srv = await startTestServer();
  key = (await srv.seed()).apiKey;
  const r = await fetch(`${srv.url}/api/v1/documents`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ content: "Refunds. Annual plans can be refunded within 30 days.", name: "refunds.txt" }),
  });
  expect(r.status).toBe(200);
});
afterAll(() => srv.stop());

const ask = async (path: string) => {
  const r = await fetch(`${srv.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "x", include_chunks: true, messages: [{ role: "user", content: "Can annual plans be refunded?" }] }),
  });
  expect(r.status).toBe(200);
  return (await r.json()) as { chunks?: unknown[] };
};

test("include_chunks is honoured by the contextual endpoint only, and docs/api.md says so", async () => {
  expect((await ask("/api/v1/chat/completions")).chunks).toBeUndefined();
  expect((await ask("/api/v1/chat/completions-contextual")).chunks?.length).toBeGreaterThan(0);
  const api = await Bun.file(join(import.meta.dir, "../../docs/api.md")).text();
  const plain = api.slice(api.indexOf("POST /api/v1/chat/completions"), api.indexOf("POST /api/v1/chat/completions-with-sources"));
  expect(plain).toContain("| `include_chunks` | boolean |  | honoured only by /api/v1/chat/completions-contextual");
});
