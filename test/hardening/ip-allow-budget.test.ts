import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
beforeAll(async () => {
  // Behind a trusted proxy (the test client on 127.0.0.1), X-Forwarded-For gives each call its own address.
  srv = await startTestServer({ DOCCHAT_TRUSTED_PROXIES: "127.0.0.1/32" });
});
afterAll(() => srv.stop());

const widgetConfig = (key: string, xff: string) =>
  fetch(`${srv.url}/api/v1/widget/config`, { method: "POST", headers: { authorization: `Bearer ${key}`, "x-forwarded-for": xff } });

test("calls refused by the IP allow-list do not consume the allowed clients' rate limit", async () => {
  const { apiKey, deploymentId } = await srv.seed();
  await srv.services.deployments.update(deploymentId, { ipAllow: ["203.0.113.0/24"] });
  // widget/config allows 120 a minute; a leaked key used 150 times from elsewhere...
  for (let i = 0; i < 150; i++) {
    const r = await widgetConfig(apiKey, "198.51.100.4");
    expect([403, 429]).toContain(r.status);
    expect(r.headers.get("x-ratelimit-limit")).toBe("120");
  }
  // ...leaves the allowed client its whole budget.
  const ok = await widgetConfig(apiKey, "203.0.113.9");
  expect(ok.status).toBe(200);
  expect(ok.headers.get("x-ratelimit-remaining")).toBe("119");
  // The blocked address is still limited on its own (by address), so it cannot hammer the server either.
  const blocked = await widgetConfig(apiKey, "198.51.100.4");
  expect(blocked.status).toBe(429);
});
