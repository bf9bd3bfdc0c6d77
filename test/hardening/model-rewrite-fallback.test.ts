import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ChatWorld, postJson, seedWithDocs, startChatWorld } from "../chat/chat-kit.ts";

let world: ChatWorld;
let docs: Awaited<ReturnType<typeof seedWithDocs>>;
beforeAll(async () => {
  world = await startChatWorld({ upstream: true });
  docs = await seedWithDocs(world.server, ["acme-handbook.txt", "harbour-museum.txt"]);
});
afterAll(() => world.stop());

describe("retrieval_fallback with a model rewrite", () => {
  test("when the model's rewrite matches nothing and the visitor's wording does, the answer comes from the visitor's wording with retrieval_fallback true", async () => {
    const history = [
      { role: "user", content: "How much does the Pro plan cost?" },
      { role: "assistant", content: "The Pro plan costs 30 euros a month." },
    ];
    const question = "Does it include single sign-on?";
    // The rewrite call (non-streamed) answers with a query that matches no passage.
    world.upstream!.setMode({ kind: "reply", text: "xylophone zeppelin quasar" });
    const r = await postJson(world.server, "/api/v1/chat/completions-contextual", docs.apiKey, {
      model: "m",
      include_chunks: true,
      messages: [...history, { role: "user", content: question }],
    });
    world.upstream!.setMode({ kind: "reply" });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { retrieval_fallback: boolean; search_query: string; sources: string[]; chunks: { text: string }[] };
    expect(body.retrieval_fallback).toBe(true);
    expect(body.search_query).toBe(question);
    expect(body.sources).toEqual(["acme-handbook"]);
    expect(body.chunks.some((c) => /single sign-on/i.test(c.text))).toBe(true);
  });
});
