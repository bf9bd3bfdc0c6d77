import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { type OwnerClient, signedInOwner } from "./owner-client.ts";

setDefaultTimeout(30_000);

let server: TestServer;
let owner: OwnerClient;
beforeAll(async () => {
  server = await startTestServer();
  owner = (await signedInOwner(server)).client;
});
afterAll(() => server.stop());

interface Created {
  deployment: { id: string; key_prefix: string; published: boolean; kind: string; training_status: string };
  api_key: string;
  key_prefix: string;
  warning: string;
}

const models = (key: string) => fetch(`${server.url}/api/v1/models`, { headers: { authorization: `Bearer ${key}` } });

describe("deployments and keys", () => {
  test("creating a deployment shows its key once; afterwards only the display prefix is ever returned", async () => {
    const c = await owner.post<Created>("/deployments", { name: "Help desk" });
    expect(c.status).toBe(201);
    expect(c.body.api_key).toMatch(/^dck_[0-9A-Za-z]{32}$/);
    expect(c.body.warning).toMatch(/only now/);
    expect(c.body.api_key.startsWith(c.body.key_prefix)).toBe(true);
    expect(c.body.deployment.published).toBe(false);
    const id = c.body.deployment.id;
    const reads = [
      await owner.get(`/deployments/${id}`),
      await owner.get("/deployments"),
      await owner.patch(`/deployments/${id}`, { name: "Help desk 2" }),
    ];
    for (const r of reads) {
      expect(JSON.stringify(r.body)).not.toContain(c.body.api_key);
      expect(JSON.stringify(r.body)).toContain(c.body.key_prefix);
    }
    expect((await models(c.body.api_key)).status).toBe(401);
    await owner.patch(`/deployments/${id}`, { published: true });
    expect((await models(c.body.api_key)).status).toBe(200);
  });

  test("regenerating shows a new key once and the old one stops working; disabling and enabling work", async () => {
    const c = await owner.post<Created>("/deployments", { name: "Rotating" });
    const id = c.body.deployment.id;
    await owner.patch(`/deployments/${id}`, { published: true });
    const r = await owner.post<{ api_key: string; key_prefix: string }>(`/deployments/${id}/key`);
    expect(r.status).toBe(200);
    expect(r.body.api_key).not.toBe(c.body.api_key);
    expect((await models(c.body.api_key)).status).toBe(401);
    expect((await models(r.body.api_key)).status).toBe(200);
    expect((await owner.get(`/deployments/${id}`)).body).toMatchObject({ key_prefix: r.body.key_prefix, key_disabled: false });
    const off = await owner.patch(`/deployments/${id}/key`, { disabled: true });
    expect(off.body).toEqual({ key_prefix: r.body.key_prefix, key_disabled: true });
    expect((await models(r.body.api_key)).status).toBe(401);
    await owner.patch(`/deployments/${id}/key`, { disabled: false });
    expect((await models(r.body.api_key)).status).toBe(200);
  });

  test("settings: rename, publish, persona, temperature, starter questions, Q&A pairs, handoff, IP allow-list", async () => {
    const c = await owner.post<Created>("/deployments", { name: "Settings" });
    const id = c.body.deployment.id;
    const r = await owner.patch(`/deployments/${id}`, {
      name: "Renamed",
      published: true,
      persona: "Be brief.",
      temperature: 0.7,
      starter_questions: ["What are the opening hours?", "  ", "Where are you?"],
      qa_pairs: [{ question: "Do you ship abroad?", answer: "Yes, within the EU." }],
      handoff_enabled: true,
      ip_allow: ["127.0.0.1", "10.0.0.0/8", "2001:db8::/32"],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: "Renamed",
      published: true,
      persona: "Be brief.",
      temperature: 0.7,
      starter_questions: ["What are the opening hours?", "Where are you?"],
      qa_pairs: [{ question: "Do you ship abroad?", answer: "Yes, within the EU." }],
      handoff_enabled: true,
      ip_allow: ["127.0.0.1", "10.0.0.0/8", "2001:db8::/32"],
    });
    const config = await fetch(`${server.url}/api/v1/widget/config`, {
      method: "POST",
      headers: { authorization: `Bearer ${c.body.api_key}` },
    });
    expect(await config.json()).toMatchObject({
      name: "Renamed",
      starter_questions: ["What are the opening hours?", "Where are you?"],
      handoff_enabled: true,
    });
  });

  test("invalid settings are refused with the field named and nothing changes", async () => {
    const c = await owner.post<Created>("/deployments", { name: "Strict" });
    const id = c.body.deployment.id;
    const cases: [Record<string, unknown>, string][] = [
      [{ ip_allow: ["10.0.0.0/33"] }, "ip_allow"],
      [{ ip_allow: ["not-an-ip"] }, "ip_allow"],
      [{ temperature: 3 }, "temperature"],
      [{ name: "   " }, "name"],
      [{ qa_pairs: [{ question: "Q", answer: "" }] }, "qa_pairs"],
    ];
    for (const [patch, param] of cases) {
      const r = await owner.patch(`/deployments/${id}`, patch);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: { code: "bad_request", param } });
    }
    const bad = await owner.patch(`/deployments/${id}`, { published: "yes" });
    expect(bad.status).toBe(400);
    expect((await owner.get(`/deployments/${id}`)).body).toMatchObject({ name: "Strict", ip_allow: [], temperature: 0.2 });
  });

  test("a Private GPT deployment is usable at once; an unknown kind is refused", async () => {
    const c = await owner.post<Created>("/deployments", { name: "Persona", kind: "private_gpt" });
    expect(c.body.deployment).toMatchObject({ kind: "private_gpt", training_status: "completed" });
    expect((await owner.post("/deployments", { name: "x", kind: "other" })).status).toBe(400);
  });
});
