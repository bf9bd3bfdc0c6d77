/**
 * Conversation export on both engines: 10,000 chat logs exported through the owner API as JSON lines and as CSV,
 * parsed back with every field present and right, in flat memory (the export is streamed a page at a time); the
 * date range, formula-safe CSV cells, and the CLI writing a file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse";
import { CSV_COLUMNS } from "../../src/owner/chat-export.service.ts";
import type { PgStore } from "../../src/store/postgres/pg-store.ts";
import { runCliProcess, startTestServer, type TestServer, tempDir } from "../helpers/server.ts";
import { freshPgDatabase, STORE_ENGINES, stopSharedCluster } from "../helpers/stores.ts";
import { sqliteDb } from "../helpers/test-sql.ts";
import { signedInOwner } from "./owner-client.ts";

afterAll(stopSharedCluster);

const N = 10_000;
const T0 = Date.parse("2025-03-01T00:00:00Z");
/** ~2 KB answers: the whole export is ~25 MB, far more than the memory it may take */
const ANSWER = "Annual plans are refunded in full within 30 days of purchase. ".repeat(33);
const CITATIONS = JSON.stringify([
  { chunkId: 42, documentId: "doc_a", source: "handbook", headingPath: "Refunds", pageStart: 3, pageEnd: 4, rowStart: null, rowEnd: null },
]);

/** Log i: one a minute from T0, every 7th refused, every 5th rated 0, every 11th with a visitor email, one formula. */
const row = (i: number) => ({
  question: i === 0 ? '=HYPERLINK("http://evil.example","click")' : `Question number ${i}, with a comma and "quotes"?`,
  refused: i % 7 === 0 ? 1 : 0,
  rating: i % 5 === 0 ? 0 : null,
  email: i % 11 === 0 ? `v${i}@example.com` : null,
  at: T0 + i * 60_000,
});

async function seed(server: TestServer, deploymentId: string): Promise<void> {
  const st = server.services.store;
  if (st.engine === "sqlite") {
    const db = sqliteDb(server.services);
    const insert = db.query(
      `INSERT INTO chat_logs (deployment_id, conversation_id, completion_id, endpoint, question, search_query, answer, sources, citations,
         prompt_tokens, completion_tokens, refused, rating, rated_at, visitor_email, created_at)
       VALUES (?, ?, ?, 'v1.chat', ?, ?, ?, '["handbook"]', ?, 10, 20, ?, ?, ?, ?, ?)`,
    );
    db.transaction(() => {
      for (let i = 0; i < N; i++) {
        const r = row(i);
        insert.run(
          deploymentId,
          `conv-${i % 100}`,
          `chatcmpl-${i}`,
          r.question,
          `search ${i}`,
          ANSWER,
          CITATIONS,
          r.refused,
          r.rating,
          r.rating === null ? null : r.at + 1000,
          r.email,
          r.at,
        );
      }
    })();
    return;
  }
  const sql = (st as PgStore).sql;
  const rows = Array.from({ length: N }, (_, i) => row(i));
  for (let start = 0; start < N; start += 1000) {
    const batch = rows.slice(start, start + 1000).map((r, j) => {
      const i = start + j;
      return {
        deployment_id: deploymentId,
        conversation_id: `conv-${i % 100}`,
        completion_id: `chatcmpl-${i}`,
        endpoint: "v1.chat",
        question: r.question,
        search_query: `search ${i}`,
        answer: ANSWER,
        sources: '["handbook"]',
        citations: CITATIONS,
        prompt_tokens: 10,
        completion_tokens: 20,
        refused: r.refused,
        rating: r.rating,
        rated_at: r.rating === null ? null : r.at + 1000,
        visitor_email: r.email,
        created_at: r.at,
      };
    });
    await sql`INSERT INTO chat_logs ${sql(batch)}`;
  }
}

/** Reads a streamed body line by line without keeping it, sampling the heap as it goes. */
async function consume(res: Response, onLine: (line: string) => void): Promise<{ bytes: number; peakHeapGrowth: number }> {
  Bun.gc(true);
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  let bytes = 0;
  let rest = "";
  let lines = 0;
  const decoder = new TextDecoder();
  for await (const chunk of res.body as ReadableStream<Uint8Array>) {
    bytes += chunk.byteLength;
    const parts = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = parts.pop() ?? "";
    for (const p of parts) {
      onLine(p);
      if (++lines % 2000 === 0) {
        Bun.gc(true);
        peak = Math.max(peak, process.memoryUsage().heapUsed - base);
      }
    }
  }
  if (rest) onLine(rest);
  return { bytes, peakHeapGrowth: peak };
}

for (const engine of STORE_ENGINES) {
  describe(`conversation export (${engine})`, () => {
    let server: TestServer;
    let owner: Awaited<ReturnType<typeof signedInOwner>>;
    let deploymentId: string;
    beforeAll(async () => {
      const env: Record<string, string> = engine === "postgres" ? { DOCCHAT_DATABASE_URL: await freshPgDatabase() } : {};
      server = await startTestServer(env);
      owner = await signedInOwner(server);
      deploymentId = (await server.services.deployments.create({ accountId: owner.accountId, name: "Export", published: true })).deployment
        .id;
      await seed(server, deploymentId);
    }, 120_000);
    afterAll(() => server?.stop());

    const download = (query: string) =>
      fetch(`${server.url}/owner/api/deployments/${deploymentId}/chat-logs/export?${query}`, { headers: { cookie: owner.client.cookie } });

    test("10,000 chat logs as JSON lines round-trip with every field, in time order, in flat memory", async () => {
      const res = await download("format=jsonl");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/x-ndjson");
      expect(res.headers.get("content-disposition")).toContain(`chat-logs-${deploymentId}-`);
      let n = 0;
      let lastAt = "";
      const { bytes, peakHeapGrowth } = await consume(res, (line) => {
        const r = JSON.parse(line) as Record<string, unknown>;
        expect(Object.keys(r).sort()).toEqual([...CSV_COLUMNS].sort());
        const expected = row(n);
        expect(r.question).toBe(expected.question);
        expect(r.search_query).toBe(`search ${n}`);
        expect(r.answer).toBe(ANSWER);
        expect(r.refused).toBe(expected.refused === 1);
        expect(r.rating).toBe(expected.rating);
        expect(r.visitor_email).toBe(expected.email);
        expect(r.correction_served).toBe(false);
        expect(r.sources).toEqual(["handbook"]);
        expect(r.citations).toEqual([
          {
            document: "handbook",
            document_id: "doc_a",
            passage_id: "42",
            page_start: 3,
            page_end: 4,
            row_start: null,
            row_end: null,
            heading_path: "Refunds",
          },
        ]);
        expect((r.created_at as string) > lastAt).toBe(true);
        lastAt = r.created_at as string;
        n++;
      });
      expect(n).toBe(N);
      expect(bytes).toBeGreaterThan(20_000_000);
      // the whole export never sat in memory: the heap grew by a small fraction of what went through
      expect(peakHeapGrowth).toBeLessThan(bytes / 4);
    }, 120_000);

    test("the same logs as CSV parse back to 10,000 rows with every column, formula cells defused", async () => {
      const res = await download("format=csv");
      expect(res.headers.get("content-type")).toContain("text/csv");
      const parser = parse({ columns: true, relax_column_count: false });
      let n = 0;
      const done = (async () => {
        for await (const rec of parser as AsyncIterable<Record<string, string>>) {
          expect(Object.keys(rec)).toEqual([...CSV_COLUMNS]);
          const expected = row(n);
          if (n === 0) expect(rec.question).toBe(`'${expected.question}`);
          else expect(rec.question).toBe(expected.question);
          expect(rec.refused).toBe(String(expected.refused === 1));
          expect(rec.rating).toBe(expected.rating === null ? "" : "0");
          expect(rec.visitor_email).toBe(expected.email ?? "");
          expect(rec.sources).toBe("handbook");
          expect((JSON.parse(rec.citations as string) as { page_start: number }[])[0]?.page_start).toBe(3);
          n++;
        }
      })();
      for await (const chunk of res.body as ReadableStream<Uint8Array>)
        if (!parser.write(chunk)) await new Promise((r) => parser.once("drain", r));
      parser.end();
      await done;
      expect(n).toBe(N);
    }, 120_000);

    test("a date range selects its days (UTC, `to` inclusive); a bad date is a 400", async () => {
      // one log a minute from 2025-03-01: 1440 on the 1st, 1440 on the 2nd
      const res = await download("from=2025-03-02&to=2025-03-02");
      let n = 0;
      await consume(res, () => n++);
      expect(n).toBe(1440);
      const bad = await download("from=yesterday");
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { param: string } }).error.param).toBe("from");
      const other = await signedInOwner(server);
      const foreign = await fetch(`${server.url}/owner/api/deployments/${deploymentId}/chat-logs/export`, {
        headers: { cookie: other.client.cookie },
      });
      expect(foreign.status).toBe(404);
    }, 60_000);
  });
}

describe("conversation export from the CLI", () => {
  test("chat-logs export writes a file (never over an existing one) and reports it with --json", async () => {
    const server = await startTestServer();
    try {
      const owner = await signedInOwner(server);
      const { deployment } = await server.services.deployments.create({ accountId: owner.accountId, name: "CLI", published: true });
      await seed(server, deployment.id);
      const out = join(tempDir(), "logs.csv");
      const r = await runCliProcess([
        "chat-logs",
        "export",
        deployment.id,
        "--format",
        "csv",
        "--from",
        "2025-03-01",
        "--to",
        "2025-03-01",
        "--out",
        out,
        "--data",
        server.dataDir,
        "--json",
      ]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ deployment_id: deployment.id, format: "csv", file: out });
      const lines = readFileSync(out, "utf8").trimEnd().split("\r\n");
      expect(lines[0]).toBe(CSV_COLUMNS.join(","));
      expect(lines.length).toBe(1 + 1440);
      const again = await runCliProcess(["chat-logs", "export", deployment.id, "--out", out, "--data", server.dataDir]);
      expect(again.code).not.toBe(0);
      expect(again.stderr).toContain("Cannot write");
    } finally {
      await server.stop();
    }
  }, 120_000);
});
