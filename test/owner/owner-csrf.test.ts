import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { describeEngines } from "../helpers/stores.ts";
import { testSql } from "../helpers/test-sql.ts";
import { type OwnerClient, signedInOwner } from "./owner-client.ts";

describeEngines("owner csrf", (engine) => {
  setDefaultTimeout(30_000);

  let server: TestServer;
  let owner: OwnerClient;
  beforeAll(async () => {
    server = await startTestServer({}, { engine });
    owner = (await signedInOwner(server)).client;
  }, 60_000);
  afterAll(() => server.stop());

  const count = async () => Number((await testSql(server.services).get<{ n: number }>("SELECT COUNT(*) AS n FROM deployments"))?.n);

  describe("CSRF on the owner API", () => {
    test("a cross-site POST that carries the owner's cookie is refused and changes nothing", async () => {
      const before = await count();
      const r = await fetch(`${server.url}/owner/api/deployments`, {
        method: "POST",
        headers: {
          cookie: owner.cookie,
          origin: "https://evil.example",
          "sec-fetch-site": "cross-site",
          "content-type": "application/json",
        },
        body: JSON.stringify({ name: "planted" }),
      });
      expect(r.status).toBe(403);
      expect(await r.json()).toMatchObject({ error: { code: "forbidden", type: "permission_error" } });
      expect(await count()).toBe(before);
    });

    test("a form post from another site (text/plain, no preflight) is refused too", async () => {
      const r = await fetch(`${server.url}/owner/api/deployments`, {
        method: "POST",
        headers: { cookie: owner.cookie, origin: "null", "content-type": "text/plain" },
        body: JSON.stringify({ name: "planted" }),
      });
      expect(r.status).toBe(403);
    });

    test("Sec-Fetch-Site same-site (a sibling subdomain) is refused even with a matching Origin", async () => {
      const r = await owner.post("/deployments", { name: "x" }, { "sec-fetch-site": "same-site" });
      expect(r.status).toBe(403);
    });

    test("a state-changing request with neither Origin nor Sec-Fetch-Site is refused", async () => {
      const r = await fetch(`${server.url}/owner/api/deployments`, {
        method: "POST",
        headers: { cookie: owner.cookie, "content-type": "application/json" },
        body: JSON.stringify({ name: "x" }),
      });
      expect(r.status).toBe(403);
    });

    test("PATCH, PUT and DELETE are checked like POST", async () => {
      const created = await owner.post<{ deployment: { id: string } }>("/deployments", { name: "Mine" });
      const id = created.body.deployment.id;
      for (const method of ["PATCH", "PUT", "DELETE"]) {
        const r = await fetch(`${server.url}/owner/api/deployments/${id}`, {
          method,
          headers: { cookie: owner.cookie, origin: "https://evil.example", "content-type": "application/json" },
          body: JSON.stringify({ name: "renamed" }),
        });
        expect(r.status).toBe(403);
      }
      expect((await server.services.repos.deployments.findById(id))?.name).toBe("Mine");
    });

    test("signing in from another site is refused (no login CSRF)", async () => {
      const r = await fetch(`${server.url}/owner/api/session`, {
        method: "POST",
        headers: { origin: "https://evil.example", "content-type": "application/json" },
        body: JSON.stringify({ email: "a@example.com", password: "x" }),
      });
      expect(r.status).toBe(403);
    });

    test("same-origin requests (Origin equal to the server's, Sec-Fetch-Site same-origin) go through", async () => {
      const r = await owner.post("/deployments", { name: "Fine" }, { "sec-fetch-site": "same-origin" });
      expect(r.status).toBe(201);
    });
  });

  describe("CORS", () => {
    test("owner routes send no CORS headers, not even to a preflight", async () => {
      const get = await owner.get("/deployments");
      const pre = await fetch(`${server.url}/owner/api/deployments`, {
        method: "OPTIONS",
        headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
      });
      for (const h of [get.headers, pre.headers]) {
        for (const name of h.keys()) expect(name.startsWith("access-control-")).toBe(false);
      }
      expect(get.headers.get("cache-control")).toBe("no-store");
    });

    test("visitor routes keep their open CORS (any origin, no credentials)", async () => {
      const r = await fetch(`${server.url}/api/v1/models`, { method: "OPTIONS", headers: { origin: "https://site.example" } });
      expect(r.headers.get("access-control-allow-origin")).toBe("*");
      expect(r.headers.get("access-control-allow-credentials")).toBeNull();
    });
  });
});
