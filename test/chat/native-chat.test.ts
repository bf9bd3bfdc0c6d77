import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ChatWorld, seedWithDocs, startChatWorld } from "./chat-kit.ts";

let world: ChatWorld;
let seeded: Awaited<ReturnType<typeof seedWithDocs>>;

beforeAll(async () => {
  world = await startChatWorld();
  seeded = await seedWithDocs(world.server);
});
afterAll(() => world.stop());

const streamUrl = (params: Record<string, string>) => `${world.server.url}/api/stream/?${new URLSearchParams(params)}`;

async function sseEvents(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((f) => f.startsWith("data: "))
    .map((f) => JSON.parse(f.slice(6)) as Record<string, unknown>);
}

describe("POST /api/chat/", () => {
  test("answers a form request with details.name, response and chat_log_id", async () => {
    const r = await fetch(`${world.server.url}/api/chat/`, {
      method: "POST",
      body: new URLSearchParams({ api_key: seeded.apiKey, msg: "Can annual plans be refunded?" }),
    });
    const body = (await r.json()) as { details: { name: string }; response: string; chat_log_id: number };
    expect(r.status).toBe(200);
    expect(body.details.name).toBe("Test deployment");
    expect(body.response).toContain("Annual plans can be refunded in full within 30 days of purchase.");
    expect(Number.isInteger(body.chat_log_id)).toBe(true);
  });

  test("keeps the legacy shape on failure: HTTP 200 with an error string instead of response", async () => {
    const r = await fetch(`${world.server.url}/api/chat/`, {
      method: "POST",
      body: new URLSearchParams({ api_key: "dc_not-a-real-key", msg: "Hello" }),
    });
    const body = (await r.json()) as { error: string; response?: string };
    expect(r.status).toBe(200);
    expect(typeof body.error).toBe("string");
    expect(body.response).toBeUndefined();
  });
});

describe("GET /api/stream/", () => {
  test("streams {token} events and ends with {done, conversation_id, tokens_count, chat_log_id}", async () => {
    const res = await fetch(streamUrl({ api_key: seeded.apiKey, msg: "When is the support desk open?" }));
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const events = await sseEvents(res);
    const done = events.at(-1) as { done: boolean; conversation_id: string; tokens_count: number; chat_log_id: number };
    expect(events.slice(0, -1).every((e) => typeof e.token === "string")).toBe(true);
    expect(
      events
        .slice(0, -1)
        .map((e) => e.token)
        .join(""),
    ).toContain("Monday to Friday");
    expect(done.done).toBe(true);
    expect(done.conversation_id).toStartWith("conv-");
    expect(done.tokens_count).toBeGreaterThan(0);
    expect(Number.isInteger(done.chat_log_id)).toBe(true);
  });

  test("answers 401 for a bad key, 402 at zero balance and 404 for an unpublished deployment before the stream starts", async () => {
    expect((await fetch(streamUrl({ api_key: "dc_not-a-real-key", msg: "Hi" }))).status).toBe(401);
    const broke = await seedWithDocs(world.server, ["acme-handbook.txt"], { tokens: 0 });
    expect((await fetch(streamUrl({ api_key: broke.apiKey, msg: "Can annual plans be refunded?" }))).status).toBe(402);
    const hidden = await world.server.seed({ published: false });
    expect((await fetch(streamUrl({ api_key: hidden.apiKey, msg: "Hi" }))).status).toBe(404);
  });

  test("a refusal is streamed for free with tokens_count 0", async () => {
    const events = await sseEvents(await fetch(streamUrl({ api_key: seeded.apiKey, msg: "Who painted the Mona Lisa?" })));
    expect((events.at(-1) as { tokens_count: number }).tokens_count).toBe(0);
  });
});
