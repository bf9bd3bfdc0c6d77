import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { runCliProcess, startTestServer, type TestServer } from "../helpers/server.ts";
import { ownerClient } from "../owner/owner-client.ts";

// every attempt runs an Argon2 verify: on a busy machine a few dozen of them take longer than bun's default 5 s
setDefaultTimeout(120_000);

let srv: TestServer;
beforeAll(async () => {
  // Behind a trusted proxy (the test client), X-Forwarded-For gives each sign-in its own address.
  srv = await startTestServer({ DOCCHAT_TRUSTED_PROXIES: "127.0.0.1/32" });
});
afterAll(() => srv.stop());

let n = 0;
async function owner() {
  const email = `locked-${++n}@example.com`;
  await srv.services.accounts.create({ email, password: "the right password" });
  return email;
}
const from = (ip: string) => {
  const c = ownerClient(srv);
  return (email: string, password: string) => c.call("POST", "/owner/api/session", { email, password }, { "x-forwarded-for": ip });
};

describe("console sign-in throttling cannot be used to lock the owner out", () => {
  test("five wrong passwords from a stranger's address throttle that address only; the owner still signs in from theirs", async () => {
    const email = await owner();
    const stranger = from("198.51.100.66");
    for (let i = 0; i < 5; i++) expect((await stranger(email, `guess ${i}`)).status).toBe(401);
    const throttled = await stranger(email, "the right password");
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await from("203.0.113.5")(email, "the right password")).status).toBe(200);
  });

  test("twenty wrong passwords sent at once from one address get exactly five tries; the rest are throttled", async () => {
    const email = await owner();
    const stranger = from("198.51.100.77");
    const statuses = (await Promise.all(Array.from({ length: 20 }, (_, i) => stranger(email, `parallel guess ${i}`)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBe(5);
    expect(statuses.filter((s) => s === 429).length).toBe(15);
  });

  test("a right password resets that address's failures", async () => {
    const email = await owner();
    const me = from("203.0.113.6");
    for (let i = 0; i < 4; i++) expect((await me(email, "typo")).status).toBe(401);
    expect((await me(email, "the right password")).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await me(email, "typo again")).status).toBe(401);
    expect((await me(email, "the right password")).status).toBe(200);
  });

  test("guesses spread over many addresses stop at the account's limit; the owner still signs in from an address used before (L8)", async () => {
    const email = await owner();
    const home = from("203.0.113.20");
    expect((await home(email, "the right password")).status).toBe(200);
    for (let i = 1; i <= 20; i++) expect((await from(`198.51.100.${i}`)(email, `guess ${i}`)).status).toBe(401);
    const stopped = await from("198.51.100.21")(email, "guess 21");
    expect(stopped.status).toBe(429);
    expect(Number(stopped.headers.get("retry-after"))).toBeGreaterThan(60);
    // a new address is stopped too, even with the right password; the address the owner used before is not
    expect((await from("198.51.100.99")(email, "the right password")).status).toBe(429);
    expect((await home(email, "the right password")).status).toBe(200);
    // the operator's unlock lets the owner in from anywhere again
    const r = await runCliProcess(["account", "unlock", "--email", email, "--data", srv.dataDir, "--json"], {
      DOCCHAT_LOG_LEVEL: "warn",
      DOCCHAT_EMBEDDER: "none",
    });
    expect(r.code).toBe(0);
    expect((await from("198.51.100.99")(email, "the right password")).status).toBe(200);
  });

  test("the operator unlocks an owner who shares an address with the guesser (docchat account unlock)", async () => {
    const email = await owner();
    const shared = from("192.0.2.10");
    for (let i = 0; i < 5; i++) await shared(email, `guess ${i}`);
    expect((await shared(email, "the right password")).status).toBe(429);
    const r = await runCliProcess(["account", "unlock", "--email", email, "--data", srv.dataDir, "--json"], {
      DOCCHAT_LOG_LEVEL: "warn",
      DOCCHAT_EMBEDDER: "none",
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ email, cleared_attempts: 5 });
    expect((await shared(email, "the right password")).status).toBe(200);
  });
});
