/**
 * Security review round 3, N4 and N9: a NUL character in a visitor's question was stored raw on SQLite (and then
 * broke `db copy` for the whole data dir without naming the row); on PostgreSQL a NUL in a persona or name was a
 * 500. Now such text is refused at the edge with 400 and the field's name, on both engines, for visitors and
 * owners alike; and `db copy` names the table, row and column of a NUL an older version let in.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runCliProcess, startTestServer, type TestServer, tempDir } from "../helpers/server.ts";
import { freshPgDatabase, stopSharedCluster } from "../helpers/stores.ts";
import { signedInOwner } from "../owner/owner-client.ts";

afterAll(stopSharedCluster);

const errorOf = async (r: Response) => ((await r.json()) as { error: { code: string; param?: string } }).error;

for (const engine of ["sqlite", "postgres"] as const) {
  describe(`unstorable characters are refused at the edge (${engine})`, () => {
    let srv: TestServer;
    let key: string;
    let deploymentId: string;
    beforeAll(async () => {
      srv = await startTestServer(engine === "postgres" ? { DOCCHAT_DATABASE_URL: await freshPgDatabase() } : {});
      ({ apiKey: key, deploymentId } = await srv.seed());
      const push = await fetch(`${srv.url}/api/v1/documents`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ content: "Opening hours. We are open from nine to five.", name: "hours.txt" }),
      });
      expect(push.status).toBe(200);
    }, 60_000);
    afterAll(() => srv.stop());

    const chat = (body: unknown) =>
      fetch(`${srv.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    test("a visitor's question, history or email with a NUL or an unpaired surrogate is a 400 naming the field, and nothing is logged", async () => {
      const cases: [unknown, string][] = [
        [{ model: "x", messages: [{ role: "user", content: "When are you open?\u0000" }] }, "messages[0].content"],
        [{ model: "x", messages: [{ role: "user", content: "When are you open?\ud800" }] }, "messages[0].content"],
        [
          {
            model: "x",
            messages: [
              { role: "user", content: "Hi" },
              { role: "assistant", content: "Hel\u0000lo" },
              { role: "user", content: "When are you open?" },
            ],
          },
          "messages[1].content",
        ],
        [{ model: "x", message: "When are you open?", visitor_email: "a\u0000@example.com" }, "visitor_email"],
      ];
      for (const [body, param] of cases) {
        const r = await chat(body);
        expect(r.status).toBe(400);
        expect(await errorOf(r)).toMatchObject({ code: "bad_request", param });
      }
      const stream = await fetch(`${srv.url}/api/v1/chat/completions?stream=true&api_key=${key}&message=open%00now`);
      expect(stream.status).toBe(400);
      expect(await errorOf(stream)).toMatchObject({ code: "bad_request", param: "message" });
      const logs = await srv.services.repos.ownerChatLogs.list(deploymentId, { limit: 50 });
      expect(JSON.stringify(logs)).not.toContain("\\u0000");
    });

    test("an owner's persona or deployment name with a NUL is a 400 naming the field, not a 500", async () => {
      const { client, accountId } = await signedInOwner(srv);
      const { deployment } = await srv.services.deployments.create({ accountId, name: "Shop", published: true });
      const persona = await client.patch(`/deployments/${deployment.id}`, { persona: "Be kind.\u0000" });
      expect(persona.status).toBe(400);
      expect((persona.body as { error: unknown }).error).toMatchObject({ code: "bad_request", param: "persona" });
      const created = await client.post("/deployments", { name: "Sh\u0000op" });
      expect(created.status).toBe(400);
      expect((created.body as { error: unknown }).error).toMatchObject({ code: "bad_request", param: "name" });
      expect((await client.patch(`/deployments/${deployment.id}`, { persona: "Be kind." })).status).toBe(200);
    });
  });
}

test("db copy names the table, row and column of a NUL an older version stored, copies nothing, and says how to fix it", async () => {
  const data = tempDir("docchat-nul-copy-");
  const srv = await startTestServer({}, { dataDir: data });
  const { apiKey } = await srv.seed();
  const pushed = await fetch(`${srv.url}/api/v1/documents`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ content: "Opening hours. The shop is open on Sunday from ten to four.", name: "hours.txt" }),
  });
  expect(pushed.status).toBe(200);
  const r = await fetch(`${srv.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "x", messages: [{ role: "user", content: "Is the shop open on Sunday?" }] }),
  });
  const { chat_log_id: id } = (await r.json()) as { chat_log_id: number };
  expect(id).toBeGreaterThan(0);
  await srv.stop();
  // what an older version let in: a NUL stored raw in a visitor's question
  const db = new Database(join(data, "docchat.db"));
  db.run("UPDATE chat_logs SET question = 'Is the shop open' || char(0) || 'on Sunday?' WHERE id = ?", [id]);
  db.close();
  const url = await freshPgDatabase();
  const copy = await runCliProcess(["db", "copy", "--from-data", data, "--to", url]);
  expect(copy.code).not.toBe(0);
  expect(copy.stderr).toContain(`chat_logs row id ${id}, column question`);
  expect(copy.stderr).toContain("UPDATE chat_logs SET question = replace(question, char(0), '')");
  const { SQL } = await import("bun");
  const target = new SQL(url, { max: 1 });
  expect(Number(((await target`SELECT count(*) AS n FROM accounts`) as { n: string }[])[0]?.n)).toBe(0);
  await target.close();
}, 120_000);
