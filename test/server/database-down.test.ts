/**
 * A node whose PostgreSQL goes away answers 503 database_unavailable (health included), never a 500 or a hang.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { type PgCluster, startPostgres } from "../helpers/postgres.ts";
import { startTestServer, type TestServer, tempDir } from "../helpers/server.ts";

let cluster: PgCluster;
let server: TestServer;
let dataDir: string;
beforeAll(async () => {
  cluster = await startPostgres();
  dataDir = tempDir();
  server = await startTestServer({ DOCCHAT_DATABASE_URL: cluster.url }, { dataDir });
}, 60_000);
afterAll(async () => {
  await server.stop().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
});

test("with its database gone, a node answers 503 database_unavailable in the error shape, on health and on the API", async () => {
  const { apiKey } = await server.seed();
  const models = () => fetch(`${server.url}/api/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect((await fetch(`${server.url}/health`)).status).toBe(200);
  expect((await models()).status).toBe(200);
  await cluster.stop();
  for (const r of [await fetch(`${server.url}/health`), await models()]) {
    expect(r.status).toBe(503);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("database_unavailable");
  }
});
