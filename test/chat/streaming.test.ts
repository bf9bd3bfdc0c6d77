import { describe, expect, test } from "bun:test";
import { EventSource } from "eventsource";
import { FAKE_UPSTREAM_REPLY } from "../helpers/fake-upstream.ts";
import { describeEngines } from "../helpers/stores.ts";
import { expectBrokenOff, openaiClient, postJson, useSeededChatWorld } from "./chat-kit.ts";

describeEngines("streaming", (engine) => {
  const { world, seeded } = useSeededChatWorld(engine, { upstream: true });

  const upstream = () => world.upstream!;

  describe("streamed answers", () => {
    test("the official openai client streams chat.completion.chunk frames; the last carries finish_reason, chat_log_id and conversation_id", async () => {
      upstream().setMode({ kind: "reply" });
      const client = openaiClient(world.server, seeded.apiKey);
      const stream = await client.chat.completions.create({
        model: "m",
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: "Can annual plans be refunded?" }],
      });
      const chunks = [];
      for await (const c of stream) chunks.push(c);
      const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
      expect(text).toBe(FAKE_UPSTREAM_REPLY);
      expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.id.startsWith("chatcmpl-"))).toBe(true);
      const withFinish = chunks.filter((c) => c.choices[0]?.finish_reason);
      expect(withFinish).toHaveLength(1);
      const last = withFinish[0] as unknown as { chat_log_id: number; conversation_id: string; sources: string[] };
      expect(Number.isInteger(last.chat_log_id)).toBe(true);
      expect(last.conversation_id).toStartWith("conv-");
      expect(last.sources).toEqual(["acme-handbook"]);
      expect(chunks.at(-1)?.usage?.total_tokens).toBeGreaterThan(0);
    });

    test("a refusal streams too, without any upstream call", async () => {
      const calls = upstream().calls.length;
      const stream = await openaiClient(world.server, seeded.apiKey).chat.completions.create({
        model: "m",
        stream: true,
        messages: [{ role: "user", content: "Who wrote Hamlet?" }],
      });
      let text = "";
      for await (const c of stream) text += c.choices[0]?.delta.content ?? "";
      expect(text).toContain("couldn't find an answer");
      expect(upstream().calls.length).toBe(calls);
    });

    test("the browser GET stream is read to [DONE] by the eventsource client, with chat_log_id and conversation_id on the final chunk", async () => {
      upstream().setMode({ kind: "reply" });
      const first = (await (
        await postJson(world.server, "/api/v1/chat/completions", seeded.apiKey, { model: "m", message: "How much does the Pro plan cost?" })
      ).json()) as { conversation_id: string };
      // The model's rewrite agrees with the deterministic one (one that matched nothing would fall back to the visitor's wording).
      upstream().setMode({ kind: "reply", text: "Does the Pro plan include single sign-on?" });
      const url = `${world.server.url}/api/v1/chat/completions?stream=true&api_key=${encodeURIComponent(seeded.apiKey)}&message=${encodeURIComponent("Does it include single sign-on?")}&conversation_id=${first.conversation_id}`;
      const frames: string[] = [];
      await new Promise<void>((resolve, reject) => {
        const es = new EventSource(url);
        es.onmessage = (ev) => {
          frames.push(ev.data);
          if (ev.data === "[DONE]") {
            es.close();
            resolve();
          }
        };
        es.onerror = (e) => {
          es.close();
          reject(new Error(`eventsource error: ${String((e as { message?: string }).message)}`));
        };
      });
      expect(frames.at(-1)).toBe("[DONE]");
      const final = JSON.parse(frames.at(-2) as string) as {
        chat_log_id: number;
        conversation_id: string;
        search_query: string;
        choices: { finish_reason: string }[];
      };
      expect(final.choices[0]?.finish_reason).toBe("stop");
      expect(Number.isInteger(final.chat_log_id)).toBe(true);
      expect(final.conversation_id).toBe(first.conversation_id);
      expect(final.search_query).toBe("Does the Pro plan include single sign-on?");
    });

    test("the GET stream without a key is a 401 and without a message a 400", async () => {
      const noKey = await fetch(`${world.server.url}/api/v1/chat/completions?stream=true&message=hi`);
      expect(noKey.status).toBe(401);
      const noMessage = await fetch(`${world.server.url}/api/v1/chat/completions?stream=true&api_key=${encodeURIComponent(seeded.apiKey)}`);
      expect(noMessage.status).toBe(400);
      expect(((await noMessage.json()) as { error: { param: string } }).error.param).toBe("message");
    });

    test("a client that disconnects mid-stream aborts the upstream generation and is charged only for what was generated", async () => {
      upstream().setMode({ kind: "slow", delayMs: 30, tokens: 400 });
      const before = (await world.server.services.repos.accounts.findById(seeded.accountId))?.tokens ?? 0;
      const abort = new AbortController();
      const res = await fetch(`${world.server.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${seeded.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "Can annual plans be refunded?" }] }),
        signal: abort.signal,
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      let seen = "";
      while (!seen.includes("word3 ")) seen += new TextDecoder().decode((await reader.read()).value);
      const index = upstream().calls.length - 1;
      abort.abort();
      const call = await upstream().waitForAbort(index);
      expect(call.aborted).toBe(true);
      expect(call.completed).toBe(false);
      // the partial answer is logged and charged once its generator has wound down
      let after = before;
      for (let i = 0; i < 200 && after === before; i++) {
        await Bun.sleep(10);
        after = (await world.server.services.repos.accounts.findById(seeded.accountId))?.tokens ?? 0;
      }
      expect(after).toBeLessThan(before);
      upstream().setMode({ kind: "reply" });
    });

    test("a failure in the middle of a stream is one frame with an error object, which the openai client raises", async () => {
      upstream().setMode({ kind: "truncated" });
      const stream = await openaiClient(world.server, seeded.apiKey).chat.completions.create({
        model: "m",
        stream: true,
        messages: [{ role: "user", content: "Can annual plans be refunded?" }],
      });
      await expectBrokenOff(stream, (c) => c.choices[0]?.delta.content ?? "");
      upstream().setMode({ kind: "reply" });
    });

    test("a model that is down before the first token is a 503 backend_down with Retry-After, not a broken stream", async () => {
      upstream().setMode({ kind: "fail", status: 500 });
      const r = await postJson(world.server, "/api/v1/chat/completions", seeded.apiKey, {
        model: "m",
        stream: true,
        messages: [{ role: "user", content: "Can annual plans be refunded?" }],
      });
      expect(r.status).toBe(503);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe("backend_down");
      upstream().setMode({ kind: "reply" });
    });
  });
});
