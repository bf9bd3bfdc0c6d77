/**
 * Rate limits across nodes (issue 12): two real `docchat serve` processes on one PostgreSQL database share the
 * limit. The 121st /api/v1/models call within a minute is refused whichever node it reaches.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type ServeProcess, startServeProcess } from "../helpers/serve-process.ts";
import { cliJson, tempDir } from "../helpers/server.ts";
import { freshPgDatabase, stopSharedCluster } from "../helpers/stores.ts";

setDefaultTimeout(90_000);
const SOURCE = [process.execPath, join(import.meta.dir, "../../src/main.ts")];
const dirs: string[] = [];
afterAll(async () => {
  await stopSharedCluster();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("the 121st /api/v1/models call within a minute is refused on every node, however the calls were spread", async () => {
  const url = await freshPgDatabase();
  const env = { DOCCHAT_DATABASE_URL: url, DOCCHAT_EMBEDDER: "none" };
  const cliDir = tempDir("docchat-rl-cli-");
  dirs.push(cliDir);
  const cli = (args: string[]) => cliJson(args, { data: cliDir, env });
  await cli(["account", "create", "--email", "nodes@example.com"]);
  const key = String((await cli(["deployment", "create", "--account", "nodes@example.com", "--name", "Shared", "--publish"])).api_key);
  const nodes: ServeProcess[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const dataDir = tempDir(`docchat-rl-node${i}-`);
      dirs.push(dataDir);
      nodes.push(await startServeProcess({ command: SOURCE, dataDir, env }));
    }
    const models = (n: number) =>
      fetch(`${(nodes[n % 2] as ServeProcess).url}/api/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    const remaining: number[] = [];
    for (let i = 0; i < 120; i++) {
      const res = await models(i % 3 === 0 ? 1 : 0); // uneven: two calls to node 0 for each to node 1
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("120");
      remaining.push(Number(res.headers.get("x-ratelimit-remaining")));
      await res.arrayBuffer();
    }
    expect(remaining).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i));
    for (const n of [0, 1]) {
      const refused = await models(n);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    }
  } finally {
    for (const n of nodes) expect(await n.stop("SIGTERM")).toBe(0);
  }
});
