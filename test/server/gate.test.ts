import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { createServer } from "../../src/server/create-server.ts";
import { startTestServices, useTestServer } from "../helpers/server.ts";
import { describeEngines } from "../helpers/stores.ts";

describeEngines("the request gate", (engine) => {
  const srv = useTestServer(engine);

  const models = (key: string | null, init: RequestInit & { query?: string } = {}) =>
    fetch(`${srv.url}/api/v1/models${init.query ?? ""}`, {
      ...init,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(init.headers as Record<string, string>) },
    });

  describe("API keys and the request gate", () => {
    test("the official openai client lists exactly the key's deployment as its one model", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      await srv.seed();
      const client = new OpenAI({ apiKey, baseURL: `${srv.url}/api/v1` });
      const list = await client.models.list();
      expect(list.data.map((m) => m.id)).toEqual([deploymentId]);
      expect(list.data[0]?.object).toBe("model");
      expect(typeof list.data[0]?.created).toBe("number");
      expect(typeof list.data[0]?.owned_by).toBe("string");
    });

    test("owned_by says nothing about the owner: no part of the account's email reaches a key holder (N5)", async () => {
      const { apiKey } = await srv.seed({ email: "jane.doe.private@example.com" });
      const r = await fetch(`${srv.url}/api/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
      const text = await r.text();
      expect(text).not.toContain("jane");
      expect(text).not.toContain("example.com");
      expect((JSON.parse(text) as { data: { owned_by: string }[] }).data[0]?.owned_by).toBe("docchat");
    });

    test("a wrong key makes the openai client raise AuthenticationError with code bad_key", async () => {
      const client = new OpenAI({ apiKey: "dck_wrongwrongwrongwrong", baseURL: `${srv.url}/api/v1`, maxRetries: 0 });
      const err = await client.models.list().catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(err.code).toBe("bad_key");
      expect(err.status).toBe(401);
    });

    test("unknown and disabled keys get the same 401 body", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      await srv.services.deployments.setKeyDisabled(deploymentId, true);
      const a = await models(apiKey);
      const b = await models("dck_doesnotexist000000000000");
      expect(a.status).toBe(401);
      expect(b.status).toBe(401);
      expect(await a.json()).toEqual(await b.json());
    });

    test("the key is accepted as Bearer, X-API-KEY or api_key query parameter", async () => {
      const { apiKey } = await srv.seed();
      expect((await models(apiKey)).status).toBe(200);
      expect((await models(null, { headers: { "x-api-key": apiKey } })).status).toBe(200);
      expect((await models(null, { query: `?api_key=${apiKey}` })).status).toBe(200);
    });

    test("Bearer wins over X-API-KEY, which wins over the query parameter", async () => {
      const { apiKey } = await srv.seed();
      expect((await models("dck_bad0000000000000000", { headers: { "x-api-key": apiKey } })).status).toBe(401);
      expect((await models(apiKey, { headers: { "x-api-key": "dck_bad0000000000000" } })).status).toBe(200);
      expect((await models(null, { headers: { "x-api-key": "dck_bad00000000000000" }, query: `?api_key=${apiKey}` })).status).toBe(401);
    });

    test("a regenerated key replaces the old one", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      const fresh = await srv.services.deployments.regenerateKey(deploymentId);
      expect((await models(apiKey)).status).toBe(401);
      expect((await models(fresh)).status).toBe(200);
    });

    test("an unpublished deployment answers 401", async () => {
      const { apiKey } = await srv.seed({ published: false });
      const r = await models(apiKey);
      expect(r.status).toBe(401);
      expect((await r.json()).error.code).toBe("not_published");
    });

    test("a disabled owner account answers 403 account_disabled", async () => {
      const { apiKey, accountId } = await srv.seed();
      await srv.services.repos.accounts.setDisabled(accountId, true);
      const r = await models(apiKey);
      expect(r.status).toBe(403);
      expect((await r.json()).error.code).toBe("account_disabled");
    });

    test("an IP allow-list that excludes the caller answers 403 ip_restricted; one that includes it passes", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      await srv.services.deployments.update(deploymentId, { ipAllow: ["10.0.0.0/8", "2001:db8::/32"] });
      const r = await models(apiKey);
      expect(r.status).toBe(403);
      expect((await r.json()).error.code).toBe("ip_restricted");
      await srv.services.deployments.update(deploymentId, { ipAllow: ["127.0.0.0/8"] });
      expect((await models(apiKey)).status).toBe(200);
    });

    test("a forged X-Forwarded-For never grants access when no proxy is trusted", async () => {
      const { apiKey, deploymentId } = await srv.seed();
      await srv.services.deployments.update(deploymentId, { ipAllow: ["203.0.113.7/32"] });
      const r = await models(apiKey, { headers: { "x-forwarded-for": "203.0.113.7" } });
      expect(r.status).toBe(403);
    });

    test("chat endpoints answer 404 not_trained before training has completed", async () => {
      const { apiKey } = await srv.seed();
      const r = await fetch(`${srv.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "x", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(r.status).toBe(404);
      expect((await r.json()).error.code).toBe("not_trained");
    });

    test("every response, errors included, carries rate-limit headers and a request id", async () => {
      const { apiKey } = await srv.seed();
      for (const r of [await models(apiKey), await models("dck_nope000000000000000"), await models(null)]) {
        expect(r.headers.get("x-ratelimit-limit")).toBe("120");
        expect(Number(r.headers.get("x-ratelimit-remaining"))).toBeGreaterThanOrEqual(0);
        expect(r.headers.get("x-request-id")).toBeTruthy();
      }
    });

    test("the 121st /api/v1/models call inside a minute gets 429 with Retry-After and code rate_limited", async () => {
      const { apiKey } = await srv.seed();
      const statuses: number[] = [];
      for (let i = 0; i < 120; i++) statuses.push((await models(apiKey)).status);
      expect(statuses.every((s) => s === 200)).toBe(true);
      const r = await models(apiKey);
      expect(r.status).toBe(429);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
      expect((await r.json()).error.code).toBe("rate_limited");
      const other = await srv.seed();
      expect((await models(other.apiKey)).status).toBe(200);
    });
  });
});

// Elysia awaits a request hook it reads as asynchronous (gate.plugin.ts says how it reads them), and one await
// makes every request's handler asynchronous: a gated request whose key and limit are at hand would pay for it.
test("no request hook is awaited: the server's request handler is composed as a plain function", async () => {
  const { services, close } = await startTestServices();
  try {
    const app = createServer(services).compile();
    expect(app.fetch.constructor.name).toBe("Function");
  } finally {
    await close();
  }
});
