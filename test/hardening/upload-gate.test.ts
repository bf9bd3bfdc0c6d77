import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { multipartHead, rawRequest } from "../helpers/raw-http.ts";
import { startServeProcess } from "../helpers/serve-process.ts";
import { runCliProcess, tempDir, useTestServer } from "../helpers/server.ts";

const MB = 1024 * 1024;
const srv = useTestServer("sqlite", { DOCCHAT_MAX_CONCURRENT_UPLOADS: "2" });
let key: string;
beforeAll(async () => {
  key = (await srv.seed()).apiKey;
});

const host = () => new URL(srv.url).host;

describe("uploads are judged on their headers before any body is read", () => {
  test("a 25 MB multipart post with a bogus key, or with none, is refused with 401 while most of it is unsent", async () => {
    for (const headers of [
      { authorization: "Bearer dc_bogus_key_0000000000000000" },
      { "x-api-key": "nope" },
      {} as Record<string, string>,
    ]) {
      const r = await rawRequest({
        url: srv.url,
        head: multipartHead("/api/v1/documents", host(), 25 * MB, headers),
        bodyBytes: 25 * MB,
        stopAfter: 256 * 1024,
      });
      expect(r.status).toBe(401);
      expect(r.text).toContain('"code":"bad_key"');
      expect(r.text.toLowerCase()).toContain("x-ratelimit-remaining");
      expect(r.sent).toBeLessThanOrEqual(256 * 1024);
    }
  });

  test("an owner upload without a session is refused with 401 before its body is read", async () => {
    const head = multipartHead("/owner/api/deployments/dep_x/documents", host(), 25 * MB, { "sec-fetch-site": "same-origin" });
    const r = await rawRequest({ url: srv.url, head, bodyBytes: 25 * MB, stopAfter: 256 * 1024 });
    expect(r.status).toBe(401);
    expect(r.text).toContain('"code":"unauthorized"');
  });

  test("a small form body may still carry the key as the api_key field", async () => {
    const form = new FormData();
    form.append("api_key", key);
    form.append("content", "Opening hours are nine to five.");
    form.append("name", "hours");
    form.append("train", "false");
    const r = await fetch(`${srv.url}/api/v1/documents`, { method: "POST", body: form });
    expect(r.status).toBe(201);
  });
});

describe("memory under unauthenticated upload floods", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const rssOf = async (pid: number) => {
    const status = await Bun.file(`/proc/${pid}/status`).text();
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? "0") * 1024;
  };

  test("20 concurrent 25 MB posts with a bogus key or none keep the server's RSS within 60 MB of where it started", async () => {
    const data = tempDir("docchat-rss-");
    dirs.push(data);
    const account = await runCliProcess(["account", "create", "--email", "rss@example.com", "--data", data]);
    expect(account.code).toBe(0);
    const server = await startServeProcess({
      command: [process.execPath, join(import.meta.dir, "../../src/main.ts")],
      dataDir: data,
      env: { DOCCHAT_EMBEDDER: "none" },
    });
    try {
      const h = new URL(server.url).host;
      await fetch(`${server.url}/health`);
      const before = await rssOf(server.pid);
      const posts = Array.from({ length: 20 }, (_, i) => {
        const headers: Record<string, string> = i % 2 ? { authorization: "Bearer dc_bogus_key_0000000000000000" } : {};
        return rawRequest({
          url: server.url,
          head: multipartHead("/api/v1/documents", h, 25 * MB, headers),
          bodyBytes: 25 * MB,
          chunkBytes: MB,
          timeoutMs: 20_000,
        });
      });
      const replies = await Promise.all(posts);
      const after = await rssOf(server.pid);
      for (const r of replies) expect(r.status).toBe(401);
      expect(after - before).toBeLessThan(60 * MB);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
