import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { insertChatLog } from "../helpers/chat-logs.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { describeEngines } from "../helpers/stores.ts";
import { type OwnerClient, signedInOwner } from "./owner-client.ts";

describeEngines("owner isolation", (engine) => {
  setDefaultTimeout(30_000);

  let server: TestServer;
  let a: OwnerClient;
  let b: OwnerClient;
  let aDep: string;
  const bData = { dep: "", doc: "", chatLog: 0, refusal: 0, apiKey: "" };

  beforeAll(async () => {
    server = await startTestServer({}, { engine });
    a = (await signedInOwner(server)).client;
    const ownerB = await signedInOwner(server);
    b = ownerB.client;
    aDep = (await a.post<{ deployment: { id: string } }>("/deployments", { name: "A's" })).body.deployment.id;
    const created = await b.post<{ deployment: { id: string }; api_key: string }>("/deployments", { name: "B's secret deployment" });
    bData.dep = created.body.deployment.id;
    bData.apiKey = created.body.api_key;
    await b.patch(`/deployments/${bData.dep}`, { handoff_enabled: true, published: true });
    const s = server.services;
    const pushed = await s.documents.push(
      { deploymentId: bData.dep, name: "b-notes.txt", bytes: new TextEncoder().encode("B's private notes."), train: true, replace: true },
      { waitMs: 5000 },
    );
    bData.doc = pushed.document.id;
    bData.chatLog = (await insertChatLog(s, { deploymentId: bData.dep, question: "B's question", answer: "B's answer" })).id;
    await s.feedback.rate(bData.dep, bData.chatLog, 0);
    await s.corrections.set(bData.chatLog, "B's correction", { deploymentId: bData.dep });
    const refusal = await insertChatLog(s, { deploymentId: bData.dep, question: "B's refused", refused: true });
    bData.refusal = refusal.id;
    const deployment = await s.repos.deployments.findById(bData.dep);
    if (!deployment) throw new Error("no deployment");
    await s.leads.handoff({
      deployment,
      ownerEmail: "b@example.com",
      email: "visitor@example.com",
      conversationId: refusal.conversationId,
    });
  }, 60_000);
  afterAll(() => server.stop());

  const notFound = (r: { status: number; body: unknown }) => {
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: { code: "not_found" } });
    expect(JSON.stringify(r.body)).not.toContain("B's");
  };

  describe("owner A cannot reach owner B's data by id", () => {
    test("B's deployment is not in A's list and is 404 to read, change or re-key", async () => {
      const list = await a.get<{ data: { id: string }[] }>("/deployments");
      expect(list.body.data.map((d) => d.id)).toEqual([aDep]);
      notFound(await a.get(`/deployments/${bData.dep}`));
      notFound(await a.patch(`/deployments/${bData.dep}`, { name: "hijacked" }));
      notFound(await a.post(`/deployments/${bData.dep}/key`));
      notFound(await a.patch(`/deployments/${bData.dep}/key`, { disabled: true }));
      expect((await server.services.repos.deployments.findById(bData.dep))?.name).toBe("B's secret deployment");
      // B's key still works: A neither replaced nor disabled it.
      const models = await fetch(`${server.url}/api/v1/models`, { headers: { authorization: `Bearer ${bData.apiKey}` } });
      expect(models.status).toBe(200);
    });

    test("B's documents are 404 through B's deployment id and through A's own deployment", async () => {
      notFound(await a.get(`/deployments/${bData.dep}/documents`));
      notFound(await a.get(`/deployments/${bData.dep}/documents/${bData.doc}`));
      notFound(await a.get(`/deployments/${aDep}/documents/${bData.doc}`));
      notFound(await a.del(`/deployments/${aDep}/documents/${bData.doc}`));
      notFound(await a.del(`/deployments/${bData.dep}/documents/${bData.doc}`));
      const form = new FormData();
      form.append("file", new File(["planted"], "planted.txt"));
      notFound(await a.post(`/deployments/${bData.dep}/documents`, form));
      notFound(await a.post(`/deployments/${bData.dep}/train`));
      expect((await server.services.repos.documents.get(bData.doc))?.status).toBeDefined();
      expect((await server.services.repos.documents.list(bData.dep)).map((d) => d.name)).toEqual(["b-notes.txt"]);
    });

    test("B's chat logs and corrections are 404, also when addressed through A's deployment", async () => {
      notFound(await a.get(`/deployments/${bData.dep}/chat-logs`));
      notFound(await a.get(`/deployments/${bData.dep}/chat-logs/${bData.chatLog}`));
      notFound(await a.get(`/deployments/${aDep}/chat-logs/${bData.chatLog}`));
      notFound(await a.get(`/deployments/${bData.dep}/corrections`));
      notFound(await a.put(`/deployments/${aDep}/corrections/${bData.chatLog}`, { answer: "overwritten" }));
      notFound(await a.del(`/deployments/${aDep}/corrections/${bData.chatLog}`));
      const mine = await a.get<{ data: unknown[] }>(`/deployments/${aDep}/chat-logs`);
      expect(mine.body.data).toEqual([]);
      expect((await server.services.repos.corrections.findForChatLog(bData.chatLog))?.answer).toBe("B's correction");
    });

    test("B's leads, their CSV and B's reports are 404", async () => {
      notFound(await a.get(`/deployments/${bData.dep}/leads`));
      const csv = await a.get(`/deployments/${bData.dep}/leads.csv`);
      expect(csv.status).toBe(404);
      expect(String(JSON.stringify(csv.body))).not.toContain("visitor@example.com");
      notFound(await a.get(`/deployments/${bData.dep}/reports?from=2020-01-01&to=2020-01-02`));
    });

    test("B itself sees all of it", async () => {
      expect((await b.get(`/deployments/${bData.dep}`)).status).toBe(200);
      expect((await b.get<{ data: unknown[] }>(`/deployments/${bData.dep}/documents`)).body.data).toHaveLength(1);
      expect((await b.get(`/deployments/${bData.dep}/chat-logs/${bData.chatLog}`)).body).toMatchObject({ question: "B's question" });
      expect((await b.get<{ data: unknown[] }>(`/deployments/${bData.dep}/leads`)).body.data).toHaveLength(1);
      const c = await b.get<{ open: unknown[]; corrections: unknown[] }>(`/deployments/${bData.dep}/corrections`);
      expect(c.body.open).toHaveLength(1);
      expect(c.body.corrections).toHaveLength(1);
    });
  });
});
