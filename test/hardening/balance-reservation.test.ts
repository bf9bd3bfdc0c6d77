/**
 * Security review round 3, N8: under concurrency the balance was overspent (110 tokens served on 100 on SQLite,
 * 144 on 100 across two PostgreSQL nodes) and some answers had no ledger row. Now an answer holds its tokens before
 * anything is written and settles after: what all answers served together never passes the balance, and every
 * answer that cost tokens has its ledger row.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { sqliteDb } from "../helpers/test-sql.ts";
import { freshPgDatabase, stopSharedCluster } from "../helpers/stores.ts";

afterAll(stopSharedCluster);

const HANDBOOK =
  "Refund policy. Annual plans can be refunded within 30 days of purchase. Monthly plans are not refunded. " +
  "Refunds are paid to the original card within five working days.";

interface Answer {
  status: number;
  code?: string;
  chatLogId?: number;
  total: number;
}

async function ask(srv: TestServer, key: string, extra: Record<string, unknown> = {}): Promise<Answer> {
  const r = await fetch(`${srv.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "x", messages: [{ role: "user", content: "Can annual plans be refunded within 30 days?" }], ...extra }),
  });
  const body = (await r.json()) as { chat_log_id?: number; usage?: { total_tokens: number }; error?: { code: string } };
  return { status: r.status, code: body.error?.code, chatLogId: body.chat_log_id, total: body.usage?.total_tokens ?? 0 };
}

async function trainedDeployment(srv: TestServer, tokens: number) {
  const seeded = await srv.seed({ tokens });
  const r = await fetch(`${srv.url}/api/v1/documents`, {
    method: "POST",
    headers: { authorization: `Bearer ${seeded.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ content: HANDBOOK, name: "refunds.txt" }),
  });
  expect(r.status).toBe(200);
  return seeded;
}

/** Served together within the balance; the balance is what is left; every charged answer has its ledger row. */
function expectSettled(answers: Answer[], start: number, balance: number, ledger: Map<number, number>) {
  const served = answers.filter((a) => a.status === 200);
  const spent = served.reduce((n, a) => n + a.total, 0);
  expect(served.length).toBeGreaterThan(0);
  expect(spent).toBeLessThanOrEqual(start);
  expect(balance).toBe(start - spent);
  for (const a of served) if (a.total > 0) expect(ledger.get(a.chatLogId as number)).toBe(-a.total);
  for (const a of answers.filter((x) => x.status !== 200)) {
    expect(a.status).toBe(402);
    expect(a.code).toBe("no_tokens");
  }
}

describe("SQLite", () => {
  test("20 concurrent answers on 60 tokens never spend more than 60, and each charged answer has its ledger row", async () => {
    const srv = await startTestServer();
    try {
      const { apiKey, accountId } = await trainedDeployment(srv, 60);
      const answers = await Promise.all(Array.from({ length: 20 }, () => ask(srv, apiKey, { max_tokens: 20 })));
      const ledger = new Map(
        sqliteDb(srv.services)
          .query<{ chat_log_id: number; delta: number }, [number]>(
            "SELECT chat_log_id, delta FROM token_ledger WHERE account_id = ? AND reason = 'answer'",
          )
          .all(accountId)
          .map((r) => [r.chat_log_id, r.delta]),
      );
      expectSettled(answers, 60, (await srv.services.repos.accounts.findById(accountId))?.tokens ?? -1, ledger);
      // nothing stays held: once they are done, what is left can be held again
      expect(sqliteDb(srv.services).query<{ n: number }, []>("SELECT COUNT(*) AS n FROM token_reservations").get()?.n).toBe(0);
    } finally {
      await srv.stop();
    }
  }, 60_000);

  test("with a chat model, what is sent is cut to what the account can pay for, and answers are charged within the balance", async () => {
    const upstream: FakeUpstream = startFakeUpstream({ mode: { kind: "reply", text: "Yes, within thirty days." } });
    const srv = await startTestServer({ DOCCHAT_LLM_URL: upstream.url, DOCCHAT_LLM_MODEL: "fake-model" });
    try {
      const { apiKey, accountId } = await trainedDeployment(srv, 2000);
      const answers = await Promise.all(Array.from({ length: 12 }, () => ask(srv, apiKey)));
      const ledger = new Map(
        sqliteDb(srv.services)
          .query<{ chat_log_id: number; delta: number }, [number]>("SELECT chat_log_id, delta FROM token_ledger WHERE account_id = ?")
          .all(accountId)
          .map((r) => [r.chat_log_id, r.delta]),
      );
      expectSettled(answers, 2000, (await srv.services.repos.accounts.findById(accountId))?.tokens ?? -1, ledger);
    } finally {
      await srv.stop();
      await upstream.close();
    }
  }, 60_000);
});

describe("PostgreSQL, two nodes", () => {
  test("20 concurrent answers spread over two nodes on 60 tokens never spend more than 60, each with its ledger row", async () => {
    const url = await freshPgDatabase();
    const one = await startTestServer({ DOCCHAT_DATABASE_URL: url });
    const two = await startTestServer({ DOCCHAT_DATABASE_URL: url });
    const sql = new SQL(url, { max: 1 });
    try {
      const { apiKey, accountId } = await trainedDeployment(one, 60);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => ask(i % 2 ? two : one, apiKey, { max_tokens: 20 })));
      const rows = (await sql`SELECT chat_log_id, delta FROM token_ledger WHERE account_id = ${accountId} AND reason = 'answer'`) as {
        chat_log_id: string;
        delta: string;
      }[];
      const ledger = new Map(rows.map((r) => [Number(r.chat_log_id), Number(r.delta)]));
      expectSettled(answers, 60, (await one.services.repos.accounts.findById(accountId))?.tokens ?? -1, ledger);
      expect(Number(((await sql`SELECT count(*) AS n FROM token_reservations`) as { n: string }[])[0]?.n)).toBe(0);
    } finally {
      await sql.close();
      await one.stop();
      await two.stop();
    }
  }, 120_000);
});
