import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { testSessions } from "../helpers/owner-sessions.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { describeEngines } from "../helpers/stores.ts";
import { testSql } from "../helpers/test-sql.ts";
import { ownerClient, signedInOwner } from "./owner-client.ts";

describeEngines("owner session", (engine) => {
  // Every sign-in runs a real Argon2id verify (a few hundred ms).
  setDefaultTimeout(30_000);

  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({}, { engine });
  }, 60_000);
  afterAll(() => server.stop());

  const token = (cookie: string) => cookie.split("=")[1] ?? "";

  describe("owner sign-in", () => {
    test("signing in sets an HttpOnly, SameSite=Strict, Path=/ cookie and stores only the SHA-256 of the session id", async () => {
      await server.services.accounts.create({ email: "cookie@example.com", password: "a long password" });
      const res = await fetch(`${server.url}/owner/api/session`, {
        method: "POST",
        headers: { origin: server.url, "content-type": "application/json" },
        body: JSON.stringify({ email: "cookie@example.com", password: "a long password" }),
      });
      expect(res.status).toBe(200);
      const cookie = res.headers.get("set-cookie") ?? "";
      expect(cookie).toMatch(/^docchat_session=[A-Za-z0-9_-]{43};/);
      expect(cookie).toContain("HttpOnly");
      expect(cookie).toContain("SameSite=Strict");
      expect(cookie).toContain("Path=/");
      expect(cookie).not.toContain("Secure");
      const id = token(cookie.split(";")[0] ?? "");
      const rows = await testSql(server.services).all<{ id_hash: string }>("SELECT id_hash FROM owner_sessions");
      expect(rows.map((r) => r.id_hash)).toContain(createHash("sha256").update(id).digest("hex"));
      expect(JSON.stringify(rows)).not.toContain(id);
      const body = (await res.json()) as { account: { email: string } };
      expect(body.account.email).toBe("cookie@example.com");
    });

    test("an unknown email and a wrong password get the same status and body", async () => {
      await server.services.accounts.create({ email: "known@example.com", password: "the right one" });
      const unknown = await ownerClient(server).login("nobody@example.com", "not the password");
      const wrong = await ownerClient(server).login("known@example.com", "not the password");
      expect(unknown.status).toBe(401);
      expect(wrong.status).toBe(401);
      expect(JSON.stringify(unknown.body)).toBe(JSON.stringify(wrong.body));
      expect(wrong.body).toMatchObject({ error: { code: "unauthorized" } });
    });

    test("both take the same work: one Argon2id verify each, the unknown email against a dummy Argon2id hash", async () => {
      // the real verify, counted (no timing: on a busy machine a clock comparison says nothing)
      const verified: string[] = [];
      const repos = server.services.repos;
      const sessions = testSessions(repos, async (password, hash) => {
        verified.push(hash.split("$")[1] ?? "");
        return Bun.password.verify(password, hash);
      });
      await server.services.accounts.create({ email: "counted@example.com", password: "the right one" });
      const fail = (email: string) =>
        sessions.login({ email, password: "not the password", clientIp: "192.0.2.44" }).catch((e: unknown) => e);
      await fail("nobody-counted@example.com");
      await fail("counted@example.com");
      expect(verified).toEqual(["argon2id", "argon2id"]);
    });

    test("signing out ends the session and clears the cookie", async () => {
      const { client } = await signedInOwner(server);
      expect((await client.get("/session")).status).toBe(200);
      const saved = client.cookie;
      const out = await client.del("/session");
      expect(out.status).toBe(200);
      expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
      client.cookie = saved;
      const after = await client.get("/session");
      expect(after.status).toBe(401);
      expect((after.body as { error: { code: string } }).error.code).toBe("unauthorized");
    });

    test("without a session every owner endpoint answers 401 with the error shape", async () => {
      const c = ownerClient(server);
      for (const path of ["/session", "/deployments", "/account"]) {
        const r = await c.get(path);
        expect(r.status).toBe(401);
        expect(r.body).toMatchObject({ error: { code: "unauthorized", type: "authentication_error" } });
      }
      expect((await c.get("/deployments/dep_x/documents")).status).toBe(401);
    });

    test("changing the password needs the current one and signs out every other session", async () => {
      const { client, email, password } = await signedInOwner(server);
      const other = ownerClient(server);
      expect((await other.login(email, password)).status).toBe(200);
      const bad = await client.post("/account/password", { current_password: "wrong", new_password: "a new password" });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ error: { param: "current_password" } });
      const short = await client.post("/account/password", { current_password: password, new_password: "short" });
      expect(short.status).toBe(400);
      expect((await client.post("/account/password", { current_password: password, new_password: "a new password" })).status).toBe(200);
      expect((await client.get("/session")).status).toBe(200);
      expect((await other.get("/session")).status).toBe(401);
      expect((await ownerClient(server).login(email, password)).status).toBe(401);
      expect((await ownerClient(server).login(email, "a new password")).status).toBe(200);
    });
  });

  describe("login throttling", () => {
    test("an account gets 5 attempts a minute, then 429 even with the right password", async () => {
      const s = await startTestServer({}, { engine });
      try {
        await s.services.accounts.create({ email: "target@example.com", password: "the password" });
        const c = ownerClient(s);
        for (let i = 0; i < 5; i++) expect((await c.login("target@example.com", `guess ${i}`)).status).toBe(401);
        const limited = await c.login("target@example.com", "the password");
        expect(limited.status).toBe(429);
        expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
        expect(limited.body).toMatchObject({ error: { code: "rate_limited" } });
        // The same limit applies to an email without an account, so throttling reveals nothing either.
        for (let i = 0; i < 5; i++) await c.login("ghost@example.com", "x");
        expect((await c.login("ghost@example.com", "x")).status).toBe(429);
      } finally {
        await s.stop();
      }
    });

    test("one address gets 20 attempts a minute across accounts", async () => {
      const s = await startTestServer({}, { engine });
      try {
        const c = ownerClient(s);
        for (let i = 0; i < 20; i++) expect((await c.login(`spray${i}@example.com`, "x")).status).toBe(401);
        expect((await c.login("spray-last@example.com", "x")).status).toBe(429);
      } finally {
        await s.stop();
      }
    });
  });

  describe("session timeouts", () => {
    test("a session unused for longer than the idle timeout ends", async () => {
      const s = await startTestServer({ DOCCHAT_SESSION_IDLE_SECONDS: "1" }, { engine });
      try {
        const { client } = await signedInOwner(s);
        expect((await client.get("/session")).status).toBe(200);
        await Bun.sleep(1200);
        expect((await client.get("/session")).status).toBe(401);
      } finally {
        await s.stop();
      }
    });

    test("an active session still ends at the absolute timeout", async () => {
      const s = await startTestServer({ DOCCHAT_SESSION_IDLE_SECONDS: "60", DOCCHAT_SESSION_MAX_SECONDS: "2" }, { engine });
      try {
        const { client } = await signedInOwner(s);
        const started = Date.now();
        while (Date.now() - started < 1500) {
          expect((await client.get("/session")).status).toBe(200);
          await Bun.sleep(300);
        }
        await Bun.sleep(2100 - (Date.now() - started));
        expect((await client.get("/session")).status).toBe(401);
        expect(Number((await testSql(s.services).get<{ n: number }>("SELECT COUNT(*) AS n FROM owner_sessions"))?.n)).toBe(0);
      } finally {
        await s.stop();
      }
    });
  });

  describe("Secure cookie", () => {
    const login = (url: string, headers: Record<string, string>) =>
      fetch(`${url}/owner/api/session`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ email: "tls@example.com", password: "a long password" }),
      });

    test("behind a trusted TLS proxy the cookie is Secure and the https origin is the server's own", async () => {
      const s = await startTestServer({ DOCCHAT_TRUSTED_PROXIES: "127.0.0.1/32" }, { engine });
      try {
        await s.services.accounts.create({ email: "tls@example.com", password: "a long password" });
        const host = new URL(s.url).host;
        const ok = await login(s.url, { "x-forwarded-proto": "https", origin: `https://${host}` });
        expect(ok.status).toBe(200);
        expect(ok.headers.get("set-cookie")).toContain("; Secure");
        // The plain-http origin is not this server's origin any more.
        expect((await login(s.url, { "x-forwarded-proto": "https", origin: s.url })).status).toBe(403);
      } finally {
        await s.stop();
      }
    });

    test("X-Forwarded-Proto from an untrusted peer is ignored", async () => {
      const s = await startTestServer({}, { engine });
      try {
        await s.services.accounts.create({ email: "tls@example.com", password: "a long password" });
        const r = await login(s.url, { "x-forwarded-proto": "https", origin: s.url });
        expect(r.status).toBe(200);
        expect(r.headers.get("set-cookie")).not.toContain("Secure");
      } finally {
        await s.stop();
      }
    });

    test("DOCCHAT_PUBLIC_URL with https makes the cookie Secure and pins the origin", async () => {
      const s = await startTestServer({ DOCCHAT_PUBLIC_URL: "https://chat.example.com/" }, { engine });
      try {
        await s.services.accounts.create({ email: "tls@example.com", password: "a long password" });
        expect((await login(s.url, { origin: s.url })).status).toBe(403);
        const r = await login(s.url, { origin: "https://chat.example.com" });
        expect(r.status).toBe(200);
        expect(r.headers.get("set-cookie")).toContain("; Secure");
      } finally {
        await s.stop();
      }
    });
  });
});
