import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startServeProcess } from "../helpers/serve-process.ts";
import { seedKeyWithCli as seedKey, tempDir } from "../helpers/server.ts";

const SOURCE = [process.execPath, join(import.meta.dir, "../../src/main.ts")];
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs `serve` on a given port; a server that starts anyway is killed after `ms` and reported as still running. */
async function serveOnTakenPort(port: string, data: string, ms: number): Promise<{ code: number | "still running"; stderr: string }> {
  const proc = Bun.spawn([...SOURCE, "serve", "--port", port, "--host", "127.0.0.1", "--data", data], {
    env: { ...process.env, DOCCHAT_EMBEDDER: "none", DOCCHAT_LOG_LEVEL: "info" },
    stdout: "ignore",
    stderr: "pipe",
  });
  const stderr = new Response(proc.stderr).text();
  const outcome = await Promise.race([proc.exited, Bun.sleep(ms).then(() => "still running" as const)]);
  if (outcome === "still running") proc.kill("SIGKILL");
  return { code: outcome, stderr: await stderr };
}

describe("one port, one server", () => {
  test("a second serve on a port already in use exits non-zero with a clear message and the first keeps all the traffic", async () => {
    const first = tempDir("docchat-port-a-");
    const second = tempDir("docchat-port-b-");
    dirs.push(first, second);
    const key = await seedKey(first);
    const server = await startServeProcess({ command: SOURCE, dataDir: first });
    try {
      const port = new URL(server.url).port;
      const r = await serveOnTakenPort(port, second, 15_000);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(r.stderr).not.toContain("docchat listening");
      // The key exists only in the first server's database: every call reaches it.
      for (let i = 0; i < 12; i++) {
        const res = await fetch(`${server.url}/api/v1/models`, { headers: { authorization: `Bearer ${key}` } });
        expect(res.status).toBe(200);
      }
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 60_000);
});
