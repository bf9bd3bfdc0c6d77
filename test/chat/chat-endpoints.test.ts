import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { describeEngines } from "../helpers/stores.ts";
import { answerCalls, type ChatWorld, postJson, seedWithDocs, startChatWorld } from "./chat-kit.ts";

describeEngines("chat endpoints", (engine) => {
  let world: ChatWorld;
  let docs: Awaited<ReturnType<typeof seedWithDocs>>;

  beforeAll(async () => {
    world = await startChatWorld({ upstream: true, engine });
    docs = await seedWithDocs(world.server, ["acme-handbook.txt", "harbour-museum.txt"]);
  }, 60_000);
  afterAll(() => world.stop());

  interface Chunk {
    text: string;
    source: string;
    score: number;
  }

  async function call(path: string, key: string, body: Record<string, unknown>) {
    const r = await postJson(world.server, path, key, { model: "m", ...body });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  }

  describe("POST /api/v1/chat/completions-with-sources", () => {
    test("always returns sources and verbatim chunks with their document and a relevance score, even without include_chunks", async () => {
      const { status, body } = await call("/api/v1/chat/completions-with-sources", docs.apiKey, {
        messages: [{ role: "user", content: "How much do adult tickets cost?" }],
      });
      expect(status).toBe(200);
      expect(body.sources).toEqual(["harbour-museum"]);
      const chunks = body.chunks as Chunk[];
      expect(chunks[0]?.source).toBe("harbour-museum");
      expect(chunks[0]?.text).toContain("Adult tickets cost 14 euros.");
      expect(chunks[0]?.score).toBeGreaterThan(0);
      expect(chunks[0]?.score).toBeLessThanOrEqual(1);
      expect(Object.keys(chunks[0] ?? {}).sort()).toEqual(["score", "source", "text"]);
    });
  });

  describe("POST /api/v1/chat/completions-contextual", () => {
    test("returns search_query and retrieval_fallback, and chunks only when include_chunks is true, once at top level", async () => {
      const without = await call("/api/v1/chat/completions-contextual", docs.apiKey, {
        messages: [{ role: "user", content: "When was the lighthouse built?" }],
      });
      expect(without.body.search_query).toBe("When was the lighthouse built?");
      expect(without.body.retrieval_fallback).toBe(false);
      expect(without.body.chunks).toBeUndefined();
      const withChunks = await call("/api/v1/chat/completions-contextual", docs.apiKey, {
        include_chunks: true,
        messages: [{ role: "user", content: "When was the lighthouse built?" }],
      });
      expect((withChunks.body.chunks as Chunk[])[0]?.text).toContain("built in 1871");
      const message = (withChunks.body.choices as { message: Record<string, unknown> }[])[0]?.message;
      expect(message?.chunks).toBeUndefined();
    });

    test("when the rewritten follow-up matches nothing, the visitor's own wording is searched and retrieval_fallback is true", async () => {
      const { status, body } = await call("/api/v1/chat/completions-contextual", docs.apiKey, {
        messages: [
          { role: "user", content: "How much extra storage does the Pro plan include per month?" },
          { role: "assistant", content: "Extra storage is sold in blocks of 100 GB." },
          { role: "user", content: "And when was the lighthouse built?" },
        ],
      });
      expect(status).toBe(200);
      expect(body.refused).toBe(false);
      expect(body.retrieval_fallback).toBe(true);
      expect(body.search_query).toBe("And when was the lighthouse built?");
      expect(body.sources).toEqual(["harbour-museum"]);
    });
  });

  describe("Private GPT deployments", () => {
    test("answer on /api/v1/chat/completions as a plain persona chat: no passages, no refusal gate", async () => {
      const gpt = await world.server.seed({ kind: "private_gpt" });
      await world.server.services.repos.deployments.update(gpt.deploymentId, { persona: "You are a poet." });
      const before = answerCalls(world.upstream!).length;
      const { status, body } = await call("/api/v1/chat/completions", gpt.apiKey, {
        messages: [{ role: "user", content: "Who won the football world cup in 1998?" }],
      });
      expect(status).toBe(200);
      expect(body.refused).toBe(false);
      expect(body.sources).toEqual([]);
      const sent = answerCalls(world.upstream!)[before]?.body?.messages ?? [];
      expect(sent[0]).toEqual({ role: "system", content: "You are a poet." });
      expect(sent.at(-1)).toEqual({ role: "user", content: "Who won the football world cup in 1998?" });
      expect(JSON.stringify(sent)).not.toContain("<passages>");
    });

    test("are refused by the with-sources and contextual endpoints with their codes", async () => {
      const gpt = await world.server.seed({ kind: "private_gpt" });
      const a = await call("/api/v1/chat/completions-with-sources", gpt.apiKey, { messages: [{ role: "user", content: "Hello" }] });
      expect(a.status).toBe(400);
      expect((a.body.error as { code: string }).code).toBe("sources_unsupported");
      const b = await call("/api/v1/chat/completions-contextual", gpt.apiKey, { messages: [{ role: "user", content: "Hello" }] });
      expect(b.status).toBe(400);
      expect((b.body.error as { code: string }).code).toBe("contextual_unsupported");
    });
  });
});
