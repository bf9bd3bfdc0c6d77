import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ DOCCHAT_TRUSTED_PROXIES: "127.0.0.1/32" });
});
afterAll(() => srv.stop());

const models = (key: string, xff: string) =>
  fetch(`${srv.url}/api/v1/models`, { headers: { authorization: `Bearer ${key}`, "x-forwarded-for": xff } });

test("behind a trusted proxy the allow-list applies to the forwarded client address", async () => {
  const { apiKey, deploymentId } = await srv.seed();
  await srv.services.deployments.update(deploymentId, { ipAllow: ["203.0.113.0/24"] });
  expect((await models(apiKey, "203.0.113.9")).status).toBe(200);
  const blocked = await models(apiKey, "198.51.100.4");
  expect(blocked.status).toBe(403);
  expect(((await blocked.json()) as { error: { code: string } }).error.code).toBe("ip_restricted");
  // A visitor who prepends an allowed address is still judged by the hop the proxy saw.
  expect((await models(apiKey, "203.0.113.9, 198.51.100.4")).status).toBe(403);
});
