import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { visitorMessages } from "../../src/shared/visitor-messages.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { type OwnerClient, signedInOwner } from "../owner/owner-client.ts";

setDefaultTimeout(30_000);

let server: TestServer;
let owner: OwnerClient;
let deploymentId: string;
let apiKey: string;
beforeAll(async () => {
  server = await startTestServer();
  const signed = await signedInOwner(server);
  owner = signed.client;
  const created = await server.services.deployments.create({
    accountId: signed.accountId,
    name: "Languages",
    kind: "docs",
    published: true,
  });
  deploymentId = created.deployment.id;
  apiKey = created.apiKey;
  const bytes = new TextEncoder().encode("Refund policy\n\nAnnual plans can be refunded within 30 days of purchase.");
  await server.services.documents.push({ deploymentId, name: "policy.txt", bytes, train: true, replace: true }, { waitMs: 20_000 });
});
afterAll(() => server.stop());

async function ask(question: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: deploymentId, messages: [{ role: "user", content: question }] }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content ?? "";
}

async function streamEvents(params: Record<string, string>): Promise<{ status: number; events: Record<string, unknown>[] }> {
  const res = await fetch(`${server.url}/api/stream/?${new URLSearchParams({ api_key: apiKey, ...params })}`);
  const text = await res.text();
  const events = text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
  return { status: res.status, events };
}

describe("the visitor's language", () => {
  test("a question the documents cannot answer is refused in the language it was asked in", async () => {
    expect(await ask("What is the capital of Australia?")).toBe(visitorMessages("en").refusal);
    expect(await ask("Wie hoch ist der höchste Berg der Welt und wer hat ihn zuerst bestiegen?")).toBe(visitorMessages("de").refusal);
    expect(await ask("Quelle est la capitale de l'Australie et qui l'a fondée ?")).toBe(visitorMessages("fr").refusal);
    expect(await ask("¿Cuál es la capital de Australia y quién la fundó?")).toBe(visitorMessages("es").refusal);
  });

  test("the native stream's lang parameter decides, and a language docchat has no messages for falls back to English", async () => {
    const de = await streamEvents({ msg: "What is the capital of Australia?", lang: "de-AT" });
    expect(de.status).toBe(200);
    expect(de.events.map((e) => e.token ?? "").join("")).toBe(visitorMessages("de").refusal);
    const ja = await streamEvents({ msg: "What is the capital of Australia?", lang: "ja" });
    expect(ja.events.map((e) => e.token ?? "").join("")).toBe(visitorMessages("en").refusal);
  });

  test("the owner's own refusal text wins in every language", async () => {
    const own = "Dazu steht nichts in unseren Unterlagen — schreiben Sie uns gern an info@example.com.";
    const set = await owner.patch<{ refusal_text: string | null }>(`/deployments/${deploymentId}`, { refusal_text: own });
    expect(set.status).toBe(200);
    expect(set.body.refusal_text).toBe(own);
    expect(await ask("What is the capital of Australia?")).toBe(own);
    expect(await ask("¿Cuál es la capital de Australia y quién la fundó?")).toBe(own);
    const cleared = await owner.patch<{ refusal_text: string | null }>(`/deployments/${deploymentId}`, { refusal_text: null });
    expect(cleared.body.refusal_text).toBeNull();
    expect(await ask("What is the capital of Australia?")).toBe(visitorMessages("en").refusal);
  });

  test("an answer the documents hold is still answered, whatever language the visitor's browser prefers", async () => {
    const a = await ask("Can annual plans be refunded?", { "accept-language": "de-DE,de;q=0.9" });
    expect(a).toContain("30 days");
  });

  test("fixed error messages follow Accept-Language and the stream's lang; the code never changes", async () => {
    const bad = await fetch(`${server.url}/api/v1/models`, {
      headers: { authorization: "Bearer dck_nope", "accept-language": "fr-CH, fr;q=0.9" },
    });
    expect(bad.status).toBe(401);
    const body = (await bad.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("bad_key");
    // bad_key's message is not a visitor message: it stays as written
    expect(body.error.message).toBe("The API key is invalid or disabled.");
    await owner.patch(`/deployments/${deploymentId}`, { published: false });
    try {
      const closed = await fetch(`${server.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "accept-language": "es-ES,es;q=0.9,en;q=0.5" },
        body: JSON.stringify({ model: deploymentId, messages: [{ role: "user", content: "Hola" }] }),
      });
      expect(closed.status).toBe(401);
      const e = (await closed.json()) as { error: { code: string; message: string } };
      expect(e.error).toMatchObject({ code: "not_published", message: visitorMessages("es").notAvailable });
      const stream = await fetch(`${server.url}/api/stream/?${new URLSearchParams({ api_key: apiKey, msg: "Hallo", lang: "de" })}`);
      expect(stream.status).toBe(404);
      expect(((await stream.json()) as { error: { message: string } }).error.message).toBe(visitorMessages("de").notAvailable);
    } finally {
      await owner.patch(`/deployments/${deploymentId}`, { published: true });
    }
  });
});

describe("pinned languages", () => {
  test("the owner API takes language codes (aliases folded), refuses unknown ones naming the field, and [] means detect", async () => {
    const ok = await owner.patch<{ languages: string[] }>(`/deployments/${deploymentId}`, { languages: ["de", "EN", "nb"] });
    expect(ok.status).toBe(200);
    expect(ok.body.languages).toEqual(["de", "en", "no"]);
    const bad = await owner.patch<{ error: { code: string; param: string; message: string } }>(`/deployments/${deploymentId}`, {
      languages: ["de", "klingon"],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "bad_request", param: "languages" });
    expect(bad.body.error.message).toContain("klingon");
    const auto = await owner.patch<{ languages: string[] }>(`/deployments/${deploymentId}`, { languages: [] });
    expect(auto.body.languages).toEqual([]);
  });
});
