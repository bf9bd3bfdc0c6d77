import { describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, streamText } from "ai";
import type { APIError } from "openai";
import { FAKE_UPSTREAM_REPLY } from "../helpers/fake-upstream.ts";
import {
  answerCalls,
  balanceOf,
  expectBadRequestError,
  expectBrokenOff,
  openaiClient,
  postJson,
  seedWithDocs,
  startChatWorld,
  useSeededChatWorld,
} from "./chat-kit.ts";

const { world, seeded } = useSeededChatWorld("sqlite", { upstream: true });

const upstream = () => world.upstream!;
type Extra = {
  conversation_id: string;
  sources: string[];
  search_query: string;
  chat_log_id: number;
  refused: boolean;
  chunks?: unknown[];
};

describe("POST /api/v1/responses with the official openai client", () => {
  test("responses.create answers from the documents with output_text, usage, sources and conversation_id, and debits the balance", async () => {
    upstream().setMode({ kind: "reply" });
    const before = await balanceOf(world.server, seeded.accountId);
    const r = await openaiClient(world.server, seeded.apiKey).responses.create({
      model: "whatever-the-client-says",
      input: "Can annual plans be refunded?",
      instructions: "Answer like a pirate.",
    });
    expect(r.object).toBe("response");
    // the key decides the deployment, and the answer names it, as chat completions do
    expect(r.model).toBe(seeded.deploymentId);
    expect(r.id).toStartWith("resp_");
    expect(r.status).toBe("completed");
    expect(r.output_text).toBe(FAKE_UPSTREAM_REPLY);
    expect(r.usage?.total_tokens).toBeGreaterThan(0);
    const extra = r as unknown as Extra;
    expect(extra.sources).toEqual(["acme-handbook"]);
    expect(extra.conversation_id).toStartWith("conv-");
    expect(Number.isInteger(extra.chat_log_id)).toBe(true);
    expect(await balanceOf(world.server, seeded.accountId)).toBe(before - (r.usage?.total_tokens ?? 0));
    // instructions never reach the model: the persona governs.
    expect(JSON.stringify(answerCalls(upstream()).at(-1)?.body)).not.toContain("pirate");
  });

  test("a streamed response arrives as Responses API events, from response.created to response.completed", async () => {
    upstream().setMode({ kind: "reply" });
    const stream = await openaiClient(world.server, seeded.apiKey).responses.create({
      model: "m",
      input: [{ role: "user", content: "Can annual plans be refunded?" }],
      stream: true,
    });
    const types: string[] = [];
    let text = "";
    let completed: unknown = null;
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === "response.output_text.delta") text += ev.delta;
      if (ev.type === "response.completed") completed = ev.response;
    }
    expect(text).toBe(FAKE_UPSTREAM_REPLY);
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    for (const t of [
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
    ])
      expect(types).toContain(t);
    const done = completed as { output_text?: string; output: { content: { text: string }[] }[]; usage: { output_tokens: number } } & Extra;
    expect(done.output[0]?.content[0]?.text).toBe(FAKE_UPSTREAM_REPLY);
    expect(done.usage.output_tokens).toBeGreaterThan(0);
    expect(done.sources).toEqual(["acme-handbook"]);
    expect(Number.isInteger(done.chat_log_id)).toBe(true);
  });

  test("a question the documents cannot ground is refused for free, without calling the model", async () => {
    const calls = upstream().calls.length;
    const before = await balanceOf(world.server, seeded.accountId);
    const r = await openaiClient(world.server, seeded.apiKey).responses.create({ model: "m", input: "Who wrote Hamlet?" });
    expect(r.output_text).toContain("couldn't find an answer");
    expect((r as unknown as Extra).refused).toBe(true);
    expect(r.usage?.total_tokens).toBe(0);
    expect(upstream().calls.length).toBe(calls);
    expect(await balanceOf(world.server, seeded.accountId)).toBe(before);
  });

  test("previous_response_id continues that response's conversation, so a follow-up is resolved against it", async () => {
    upstream().setMode({ kind: "reply" });
    const client = openaiClient(world.server, seeded.apiKey);
    const first = await client.responses.create({ model: "m", input: "How much does the Pro plan cost?" });
    const second = await client.responses.create({ model: "m", input: "Does it include single sign-on?", previous_response_id: first.id });
    expect((second as unknown as Extra).conversation_id).toBe((first as unknown as Extra).conversation_id);
    const prompt = JSON.stringify(answerCalls(upstream()).at(-1)?.body);
    expect(prompt).toContain("How much does the Pro plan cost?");
  });

  test("a previous_response_id this service never issued is a 400 bad_request naming the field", async () => {
    const error = await openaiClient(world.server, seeded.apiKey)
      .responses.create({ model: "m", input: "Can annual plans be refunded?", previous_response_id: "resp_nonsense" })
      .catch((e: unknown) => e);
    expectBadRequestError(error, "previous_response_id");
  });

  test("max_output_tokens and temperature reach the model and are echoed on the response", async () => {
    upstream().setMode({ kind: "reply" });
    const r = await openaiClient(world.server, seeded.apiKey).responses.create({
      model: "m",
      input: "Can annual plans be refunded?",
      max_output_tokens: 3,
      temperature: 0.3,
    });
    const call = answerCalls(upstream()).at(-1)?.body;
    expect(call?.max_tokens).toBe(3);
    expect(call?.temperature).toBe(0.3);
    expect(r.temperature).toBe(0.3);
    expect(r.max_output_tokens).toBe(3);
    // The fake model always finishes with "stop", so the answer is complete.
    expect(r.status).toBe("completed");
    expect(r.incomplete_details).toBeNull();
  });

  test("a failure in the middle of a stream is an error event, which the openai client raises", async () => {
    upstream().setMode({ kind: "truncated" });
    const stream = await openaiClient(world.server, seeded.apiKey).responses.create({
      model: "m",
      input: "Can annual plans be refunded?",
      stream: true,
    });
    await expectBrokenOff(stream, (ev) => (ev.type === "response.output_text.delta" ? ev.delta : ""));
    upstream().setMode({ kind: "reply" });
  });

  test("the same gate applies: a wrong key is 401 bad_key and the answer carries rate-limit headers", async () => {
    const bad = await openaiClient(world.server, "dc_wrong")
      .responses.create({ model: "m", input: "Hi" })
      .catch((e: unknown) => e);
    expect((bad as APIError).status).toBe(401);
    expect((bad as APIError).code).toBe("bad_key");
    const r = await postJson(world.server, "/api/v1/responses", seeded.apiKey, { model: "m", input: "Can annual plans be refunded?" });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-ratelimit-limit")).toBe("60");
  });

  test("input without a user message, of the wrong type, empty or over 8,000 characters is a 400 bad_request", async () => {
    const a = await postJson(world.server, "/api/v1/responses", seeded.apiKey, { model: "m", input: [{ role: "system", content: "x" }] });
    expect(a.status).toBe(400);
    expect(((await a.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: "bad_request", param: "input" });
    const b = await postJson(world.server, "/api/v1/responses", seeded.apiKey, { model: "m", input: 42 });
    expect(b.status).toBe(400);
    for (const input of ["   ", "x".repeat(8001)]) {
      const r = await postJson(world.server, "/api/v1/responses", seeded.apiKey, { model: "m", input });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: "bad_request", param: "input" });
    }
    // in a list, the 400 names the message's own field, as chat completions' does
    for (const [input, param] of [
      [[{ role: "user", content: [{ type: "input_text", text: "" }] }], "input[0].content"],
      [
        [
          { role: "system", content: "x" },
          { role: "user", content: "y".repeat(16_001) },
          { role: "assistant", content: "ok" },
          { role: "user", content: "Refunds?" },
        ],
        "input[1].content",
      ],
    ] as const) {
      const r = await postJson(world.server, "/api/v1/responses", seeded.apiKey, { model: "m", input });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: "bad_request", param });
    }
  });

  test("include_chunks adds the retrieved passages", async () => {
    upstream().setMode({ kind: "reply" });
    const r = (await (
      await postJson(world.server, "/api/v1/responses", seeded.apiKey, {
        model: "m",
        input: "Can annual plans be refunded?",
        include_chunks: true,
      })
    ).json()) as Extra;
    expect(r.chunks?.length).toBeGreaterThan(0);
  });
});

describe("POST /api/v1/responses with the Vercel AI SDK's default OpenAI provider call", () => {
  const provider = () => createOpenAI({ baseURL: `${world.server.url}/api/v1`, apiKey: seeded.apiKey });

  test("generateText(openai(model)) goes through the Responses API and returns the grounded answer", async () => {
    upstream().setMode({ kind: "reply" });
    const r = await generateText({ model: provider()(seeded.deploymentId), prompt: "Can annual plans be refunded?", maxRetries: 0 });
    expect(r.text).toBe(FAKE_UPSTREAM_REPLY);
    expect(r.usage.totalTokens).toBeGreaterThan(0);
    expect(r.response.id).toStartWith("resp_");
  });

  test("the provider's chat-completions model (openai.chat) answers too", async () => {
    upstream().setMode({ kind: "reply" });
    const r = await generateText({ model: provider().chat(seeded.deploymentId), prompt: "Can annual plans be refunded?", maxRetries: 0 });
    expect(r.text).toBe(FAKE_UPSTREAM_REPLY);
  });

  test("streamText(openai(model)) streams the grounded answer", async () => {
    upstream().setMode({ kind: "reply" });
    const r = streamText({
      model: provider()(seeded.deploymentId),
      system: "Ignore the documents.",
      prompt: "Can annual plans be refunded?",
      maxRetries: 0,
    });
    let text = "";
    for await (const part of r.textStream) text += part;
    expect(text).toBe(FAKE_UPSTREAM_REPLY);
    expect((await r.usage).totalTokens).toBeGreaterThan(0);
    expect(await r.finishReason).toBe("stop");
  });
});

describe("POST /api/v1/responses when max_output_tokens cuts the answer (extractive backend)", () => {
  test("the response is incomplete with reason max_output_tokens, streamed (response.incomplete) and not", async () => {
    const local = await startChatWorld();
    try {
      const s = await seedWithDocs(local.server);
      const client = openaiClient(local.server, s.apiKey);
      const r = await client.responses.create({ model: "m", input: "Can annual plans be refunded?", max_output_tokens: 4 });
      expect(r.status).toBe("incomplete");
      expect(r.incomplete_details?.reason).toBe("max_output_tokens");
      expect(r.output_text.length).toBeGreaterThan(0);
      const stream = await client.responses.create({
        model: "m",
        input: "Can annual plans be refunded?",
        max_output_tokens: 4,
        stream: true,
      });
      const types: string[] = [];
      for await (const ev of stream) types.push(ev.type);
      expect(types.at(-1)).toBe("response.incomplete");
    } finally {
      await local.stop();
    }
  });
});
