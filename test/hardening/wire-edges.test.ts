import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { RUNTIME_HEAD_LIMIT } from "../../src/server/pipeline/head-limit.ts";
import { multipartHead, rawRequest } from "../helpers/raw-http.ts";
import { startServeProcess } from "../helpers/serve-process.ts";
import { runCliProcess, startTestServer, type TestServer, tempDir } from "../helpers/server.ts";
import { sqliteDb } from "../helpers/test-sql.ts";
import { signedInOwner } from "../owner/owner-client.ts";

let srv: TestServer;
let key: string;
beforeAll(async () => {
  srv = await startTestServer();
  const seeded = await srv.seed();
  key = seeded.apiKey;
  await srv.services.repos.deployments.setTrainingStatus(seeded.deploymentId, "completed");
});
afterAll(() => srv.stop());

type ErrorBody = { error: { code: string; message: string; type: string; param?: string } };
const hasRateHeaders = (text: string) => /x-ratelimit-limit: \d+/i.test(text) && /x-ratelimit-remaining: \d+/i.test(text);
/** A chat completion request with the key, whose body is sent as given under the given Content-Type. */
const postChat = (contentType: string, body: string) =>
  fetch(`${srv.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": contentType },
    body,
  });

describe("malformed requests get the spec's code", () => {
  test("malformed JSON is 400 bad_request (not invalid_json), with the detail in param and message", async () => {
    const r = await postChat("application/json", '{"model": "x", "messages": [');
    expect(r.status).toBe(400);
    const body = (await r.json()) as ErrorBody;
    expect(body.error).toMatchObject({ code: "bad_request", param: "body", type: "invalid_request_error" });
    expect(body.error.message).toContain("JSON");
  });

  test("a body of a type no endpoint reads is 400 bad_request naming content-type", async () => {
    const r = await postChat("application/xml", "<a/>");
    expect(r.status).toBe(400);
    expect(((await r.json()) as ErrorBody).error).toMatchObject({ code: "bad_request", param: "content-type" });
  });

  test("a form with invalid UTF-8 or a malformed multipart body on /api/chat/ is bad_request, not bad_key", async () => {
    const bad = [
      { type: "application/x-www-form-urlencoded", body: new Uint8Array([0x61, 0x3d, 0xff, 0xfe]) },
      { type: "multipart/form-data; boundary=zzz", body: new TextEncoder().encode("garbage") },
    ];
    for (const b of bad) {
      const r = await fetch(`${srv.url}/api/chat/`, { method: "POST", headers: { "content-type": b.type }, body: b.body });
      const body = (await r.json()) as { error: string; code: string };
      expect(body.code).toBe("bad_request");
      expect(r.headers.get("x-ratelimit-remaining")).not.toBeNull();
    }
  });

  test("chat-logs?limit=1.5 is a 400, not a 500", async () => {
    const { client } = await signedInOwner(srv);
    const c = await client.post<{ deployment: { id: string } }>("/deployments", { name: "Logs" });
    for (const q of ["limit=1.5", "before=2.5"]) {
      const r = await client.get<ErrorBody>(`/deployments/${c.body.deployment.id}/chat-logs?${q}`);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("bad_request");
    }
  });
});

describe("every /api response carries the error shape and rate-limit headers", () => {
  const head = (path: string, extra = "") =>
    `GET ${path} HTTP/1.1\r\nhost: ${new URL(srv.url).host}\r\nauthorization: Bearer ${key}\r\n${extra}\r\n`;

  test("raw paths with .. or %2E%2E answer a 4xx in the error shape with rate-limit headers, never a 500", async () => {
    for (const path of [
      "/api/v1/documents/..",
      "/api/v1/documents/%2E%2E",
      "/api/v1/documents/%2e%2e/%2e%2e/models",
      "/api/v1/../v1/nothing",
    ]) {
      const r = await rawRequest({ url: srv.url, head: head(path), bodyBytes: 0, timeoutMs: 3000 });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(r.text).toContain('"code":"');
      expect(hasRateHeaders(r.text)).toBe(true);
    }
  });

  test("an oversized header or URL answers 431 in the error shape with rate-limit headers", async () => {
    const bigHeader = await rawRequest({
      url: srv.url,
      head: head("/api/v1/models", `x-filler: ${"a".repeat(13_000)}\r\n`),
      bodyBytes: 0,
      timeoutMs: 3000,
    });
    const bigUrl = await rawRequest({
      url: srv.url,
      head: head(`/api/v1/models?pad=${"b".repeat(13_000)}`),
      bodyBytes: 0,
      timeoutMs: 3000,
    });
    for (const r of [bigHeader, bigUrl]) {
      expect(r.status).toBe(431);
      expect(r.text).toContain('"code":"request_header_too_large"');
      expect(hasRateHeaders(r.text)).toBe(true);
    }
  });

  test("a 100 KB header to docchat serve started as `bun run serve` does gets the 431 error body, not the runtime's bare 431 (L6)", async () => {
    const pkg = (await Bun.file(join(import.meta.dir, "../../package.json")).json()) as { scripts: Record<string, string> };
    // "bun --max-http-header-size=N src/main.ts serve": this Bun, the script's flags, the script's entry
    const [, ...flags] = (pkg.scripts.serve ?? "").replace(/ src\/main\.ts serve$/, "").split(" ");
    const data = tempDir("docchat-431-");
    const server = await startServeProcess({
      command: [process.execPath, ...flags, join(import.meta.dir, "../../src/main.ts")],
      dataDir: data,
      env: { DOCCHAT_EMBEDDER: "none" },
    });
    try {
      const r = await rawRequest({
        url: server.url,
        head: `GET /api/v1/models HTTP/1.1\r\nhost: ${new URL(server.url).host}\r\nx-filler: ${"a".repeat(100_000)}\r\n\r\n`,
        bodyBytes: 0,
        timeoutMs: 5000,
      });
      expect(r.status).toBe(431);
      expect(r.text).toContain('"code":"request_header_too_large"');
      expect(server.log()).not.toContain("bare 431");
    } finally {
      await server.stop();
      rmSync(data, { recursive: true, force: true });
    }
  }, 60_000);

  test("the runtime's head limit is the same in package.json's scripts and the binary's build", async () => {
    const pkg = (await Bun.file(join(import.meta.dir, "../../package.json")).json()) as { scripts: Record<string, string> };
    for (const name of ["serve", "start"]) expect(pkg.scripts[name]).toContain(`--max-http-header-size=${RUNTIME_HEAD_LIMIT}`);
    expect(await Bun.file(join(import.meta.dir, "../../scripts/build-binary.ts")).text()).toMatch(
      /execArgv: \[`--max-http-header-size=\$\{RUNTIME_HEAD_LIMIT\}`\]/,
    );
  });

  test("a CORS preflight answers 204 with the rate-limit headers, without using up the limit", async () => {
    const pre = await fetch(`${srv.url}/api/v1/models`, {
      method: "OPTIONS",
      headers: { origin: "https://site.example", "access-control-request-method": "GET" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("x-ratelimit-limit")).toBe("120");
    expect(pre.headers.get("x-ratelimit-remaining")).toBe("120");
    const again = await fetch(`${srv.url}/api/v1/models`, { method: "OPTIONS" });
    expect(again.headers.get("x-ratelimit-remaining")).toBe("120");
  });

  test("a body over the cap of a running serve answers 413 in the error shape with rate-limit headers, not Bun's bare 413", async () => {
    const data = tempDir("docchat-413-");
    try {
      const account = await runCliProcess(["account", "create", "--email", "big@example.com", "--data", data]);
      expect(account.code).toBe(0);
      const dep = await runCliProcess([
        "deployment",
        "create",
        "--account",
        "big@example.com",
        "--name",
        "Big",
        "--publish",
        "--data",
        data,
        "--json",
      ]);
      const bigKey = (JSON.parse(dep.stdout) as { api_key: string }).api_key;
      const server = await startServeProcess({
        command: [process.execPath, join(import.meta.dir, "../../src/main.ts")],
        dataDir: data,
        env: { DOCCHAT_EMBEDDER: "none", DOCCHAT_MAX_UPLOAD_BYTES: "65536", DOCCHAT_MAX_BODY_BYTES: "4096" },
      });
      try {
        const h = new URL(server.url).host;
        for (const path of ["/api/v1/documents", "/api/v1/widget/config"]) {
          const r = await rawRequest({
            url: server.url,
            head: multipartHead(path, h, 1_000_000, { authorization: `Bearer ${bigKey}` }),
            bodyBytes: 1_000_000,
            stopAfter: 0,
            timeoutMs: 5000,
          });
          expect(r.status).toBe(413);
          expect(r.text).toContain('"code":"payload_too_large"');
          expect(hasRateHeaders(r.text)).toBe(true);
        }
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("leads: newest first, every one reachable", () => {
  test("with more than 10,000 leads the newest come first and paging reaches every one, the CSV too", async () => {
    const { deploymentId } = await srv.seed();
    const db = sqliteDb(srv.services);
    const total = 10_050;
    db.transaction(() => {
      const insert = db.prepare(
        "INSERT INTO leads (deployment_id, conversation_id, chat_log_id, email, name, message, refused_question, created_at) VALUES (?, NULL, NULL, ?, '', '', 'q', ?)",
      );
      for (let i = 0; i < total; i++) insert.run(deploymentId, `visitor${i}@example.com`, 1_700_000_000_000 + i);
    })();
    const { client, accountId } = await signedInOwner(srv);
    db.run("UPDATE deployments SET account_id = ? WHERE id = ?", [accountId, deploymentId]);
    type Page = { data: { email: string; id: number }[]; next_before: number | null };
    const first = await client.get<Page>(`/deployments/${deploymentId}/leads`);
    expect(first.body.data[0]?.email).toBe(`visitor${total - 1}@example.com`);
    const seen = new Set(first.body.data.map((l) => l.email));
    let before = first.body.next_before;
    let pages = 1;
    while (before !== null) {
      const page = await client.get<Page>(`/deployments/${deploymentId}/leads?limit=1000&before=${before}`);
      for (const l of page.body.data) seen.add(l.email);
      before = page.body.next_before;
      pages++;
    }
    expect(seen.size).toBe(total);
    expect(pages).toBeGreaterThan(2);
    const csv = await client.call("GET", `/owner/api/deployments/${deploymentId}/leads.csv`);
    const lines = String(csv.body).trim().split("\n");
    expect(lines).toHaveLength(total + 1);
    expect(lines[1]).toContain(`visitor${total - 1}@example.com`);
  }, 60_000);
});
