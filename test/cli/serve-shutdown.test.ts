import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startServeProcess } from "../helpers/serve-process.ts";
import { seedKeyWithCli as seedKey, tempDir } from "../helpers/server.ts";

const SOURCE = [process.execPath, join(import.meta.dir, "../../src/main.ts")];
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * A request whose body trickles in, so it is still in flight when the signal arrives. It goes to the documents
 * endpoint with a valid key: the gate lets it through and the server has to read the whole body to answer.
 */
function slowRequest(url: string, key: string, opts: { chunks: number; gapMs: number }) {
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const enc = new TextEncoder();
      controller.enqueue(enc.encode('{"title":"slow","text":"'));
      for (let i = 0; i < opts.chunks; i++) {
        await Bun.sleep(opts.gapMs);
        controller.enqueue(enc.encode(" "));
      }
      controller.enqueue(enc.encode('"}'));
      controller.close();
    },
  });
  return fetch(`${url}/api/v1/documents`, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
  });
}

describe("serve shuts down gracefully", () => {
  test("SIGTERM lets an in-flight request finish, refuses new connections, releases the data dir and exits 0", async () => {
    const data = tempDir("docchat-shutdown-");
    dirs.push(data);
    const key = await seedKey(data);
    const server = await startServeProcess({ command: SOURCE, dataDir: data });
    expect(existsSync(join(data, "docchat.pid"))).toBe(true);
    const inFlight = slowRequest(server.url, key, { chunks: 8, gapMs: 100 });
    await Bun.sleep(150);
    server.proc.kill("SIGTERM");
    await Bun.sleep(100);
    const refused = await fetch(`${server.url}/health`).then(
      () => false,
      () => true,
    );
    expect(refused).toBe(true);
    const res = await inFlight;
    // Answered in full (whatever the documents endpoint makes of this body), not cut off.
    expect(res.status).toBeGreaterThanOrEqual(200);
    expect(res.status).toBeLessThan(500);
    expect(await res.text()).not.toBe("");
    expect(await server.stop()).toBe(0);
    expect(server.log()).toContain("waiting for in-flight requests");
    expect(server.log()).toContain('"forced":false');
    expect(existsSync(join(data, "docchat.pid"))).toBe(false);
    // The WAL was checkpointed into the main file on close.
    const wal = join(data, "docchat.db-wal");
    expect(!existsSync(wal) || Bun.file(wal).size === 0).toBe(true);
  }, 60_000);

  test("a request that outlives DOCCHAT_SHUTDOWN_TIMEOUT_MS is cut off and the exit is still 0", async () => {
    const data = tempDir("docchat-shutdown-slow-");
    dirs.push(data);
    const key = await seedKey(data);
    const server = await startServeProcess({ command: SOURCE, dataDir: data, env: { DOCCHAT_SHUTDOWN_TIMEOUT_MS: "300" } });
    const inFlight = slowRequest(server.url, key, { chunks: 100, gapMs: 100 }).catch((e: unknown) => e);
    await Bun.sleep(150);
    const started = performance.now();
    expect(await server.stop("SIGTERM")).toBe(0);
    // cut off, not waited for: the request alone would take 10 s (a loose bound, so a busy machine can't fail it)
    expect(performance.now() - started).toBeLessThan(9000);
    expect(server.log()).toContain('"forced":true');
    await inFlight;
  }, 60_000);

  test("a second server on the same data dir is refused while the first runs", async () => {
    const data = tempDir("docchat-shutdown-two-");
    dirs.push(data);
    const first = await startServeProcess({ command: SOURCE, dataDir: data });
    try {
      const second = Bun.spawn([...SOURCE, "serve", "--port", "0", "--data", data], { stdout: "pipe", stderr: "pipe" });
      const [code, stderr] = await Promise.all([second.exited, new Response(second.stderr).text()]);
      expect(code).not.toBe(0);
      expect(stderr).toContain(`pid ${first.pid}`);
    } finally {
      expect(await first.stop("SIGINT")).toBe(0);
    }
  }, 60_000);
});
