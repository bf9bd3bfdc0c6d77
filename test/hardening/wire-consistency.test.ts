import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ChatWorld, openaiClient, postJson, seedWithDocs, startChatWorld } from "../chat/chat-kit.ts";
import { insertChatLog } from "../helpers/chat-logs.ts";
import { describeEngines } from "../helpers/stores.ts";
import { testSql } from "../helpers/test-sql.ts";
import { signedInOwner } from "../owner/owner-client.ts";

describeEngines("wire consistency", (engine) => {
  let world: ChatWorld;
  let seeded: Awaited<ReturnType<typeof seedWithDocs>>;
  beforeAll(async () => {
    world = await startChatWorld({ engine });
    seeded = await seedWithDocs(world.server);
  }, 60_000);
  afterAll(() => world.stop());

  const QUESTION = "Can annual plans be refunded?";
  const modelsIn = (sse: string) => [...new Set([...sse.matchAll(/"model":"([^"]*)"/g)].map((m) => m[1]))];

  describe("one rule for `model`: the deployment that answered", () => {
    test("non-streamed and streamed, POST and GET, all name the deployment id whatever the request said", async () => {
      const client = openaiClient(world.server, seeded.apiKey);
      const plain = await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: QUESTION }] });
      expect(plain.model).toBe(seeded.deploymentId);
      const stream = await client.chat.completions.create({
        model: "gpt-4o",
        stream: true,
        messages: [{ role: "user", content: QUESTION }],
      });
      const chunkModels = new Set<string>();
      for await (const chunk of stream) chunkModels.add(chunk.model);
      expect([...chunkModels]).toEqual([seeded.deploymentId]);
      const base = `${world.server.url}/api/v1/chat/completions?api_key=${encodeURIComponent(seeded.apiKey)}&message=${encodeURIComponent(QUESTION)}&model=other`;
      expect(modelsIn(await (await fetch(base)).text())).toEqual([seeded.deploymentId]);
      expect(((await (await fetch(`${base}&stream=false`)).json()) as { model: string }).model).toBe(seeded.deploymentId);
      const contextual = await postJson(world.server, "/api/v1/chat/completions-contextual", seeded.apiKey, {
        model: "x",
        stream: true,
        messages: [{ role: "user", content: QUESTION }],
      });
      expect(modelsIn(await contextual.text())).toEqual([seeded.deploymentId]);
    });
  });

  describe("times on the wire are Unix seconds", () => {
    test("deployment trained_at, created_at and updated_at, chat logs, corrections, leads and the ledger are in seconds", async () => {
      const { client, accountId } = await signedInOwner(world.server);
      const created = await client.post<{ deployment: { id: string } }>("/deployments", { name: "Times" });
      const id = created.body.deployment.id;
      await testSql(world.server.services).run("UPDATE deployments SET account_id = ? WHERE id = ?", [accountId, seeded.deploymentId]);
      const nowS = Date.now() / 1000;
      const near = (v: unknown) => {
        expect(typeof v).toBe("number");
        expect(Math.abs((v as number) - nowS)).toBeLessThan(600);
      };
      const fresh = await client.get<{ created_at: number; updated_at: number }>(`/deployments/${id}`);
      near(fresh.body.created_at);
      near(fresh.body.updated_at);
      const trained = await client.get<{ trained_at: number; created_at: number }>(`/deployments/${seeded.deploymentId}`);
      near(trained.body.trained_at);
      const log = await insertChatLog(world.server.services, {
        deploymentId: seeded.deploymentId,
        refused: true,
        question: "Do you ship to Mars?",
      });
      const logs = await client.get<{ data: { created_at: number }[] }>(`/deployments/${seeded.deploymentId}/chat-logs`);
      for (const l of logs.body.data) near(l.created_at);
      await world.server.services.feedback.rate(seeded.deploymentId, log.id, 0);
      const open = await client.get<{ open: { rated_at: number; created_at: number }[] }>(
        `/deployments/${seeded.deploymentId}/corrections`,
      );
      near(open.body.open[0]?.rated_at);
      near(open.body.open[0]?.created_at);
      await testSql(world.server.services).run(
        "INSERT INTO leads (deployment_id, conversation_id, chat_log_id, email, name, message, refused_question, created_at) VALUES (?, NULL, ?, 'v@example.com', '', '', 'q', ?)",
        [seeded.deploymentId, log.id, Date.now()],
      );
      const leads = await client.get<{ data: { created_at: number }[] }>(`/deployments/${seeded.deploymentId}/leads`);
      near(leads.body.data[0]?.created_at);
      const account = await client.get<{ ledger: { created_at: number }[] }>("/account");
      for (const l of account.body.ledger) near(l.created_at);
      const session = await client.get<{ expires_at: number }>("/session");
      expect(session.body.expires_at).toBeGreaterThan(nowS);
      expect(session.body.expires_at).toBeLessThan(nowS + 366 * 86_400);
    });
  });
});
