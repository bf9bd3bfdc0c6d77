import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startServeProcess } from "../helpers/serve-process.ts";
import { cliJson, tempDir } from "../helpers/server.ts";

const data = tempDir("docchat-live-changes-");
afterAll(() => rmSync(data, { recursive: true, force: true }));

const cli = (args: string[]) => cliJson(args, { data });

// The server caches key lookups while the database is unchanged; a change made by another process (the CLI)
// must still be seen on the very next request.
test("the running server sees CLI changes to keys and deployments on its next request", async () => {
  await cli(["account", "create", "--email", "live@example.com"]);
  const dep = await cli(["deployment", "create", "--account", "live@example.com", "--name", "Live", "--publish"]);
  const id = String(dep.id);
  const server = await startServeProcess({ command: [process.execPath, join(import.meta.dir, "../../src/main.ts")], dataDir: data });
  const models = (key: unknown) => fetch(`${server.url}/api/v1/models`, { headers: { authorization: `Bearer ${String(key)}` } });
  const code = async (key: unknown) => {
    const res = await models(key);
    return res.status === 200 ? 200 : ((await res.json()) as { error: { code: string } }).error.code;
  };
  try {
    expect(await code(dep.api_key)).toBe(200);
    expect(await code(dep.api_key)).toBe(200);
    await cli(["deployment", "update", id, "--unpublish"]);
    expect(await code(dep.api_key)).toBe("not_published");
    await cli(["deployment", "update", id, "--publish"]);
    expect(await code(dep.api_key)).toBe(200);
    const fresh = await cli(["key", "regenerate", id]);
    expect(await code(dep.api_key)).toBe("bad_key");
    expect(await code(fresh.api_key)).toBe(200);
    await cli(["key", "disable", id]);
    expect(await code(fresh.api_key)).toBe("bad_key");
  } finally {
    expect(await server.stop()).toBe(0);
  }
}, 60_000);
