import { afterAll, afterEach, describe, expect, test } from "bun:test";
import type { GenerateEvent, GenerateRequest } from "../../src/llm/backend.ts";
import { createOpenAiCompatibleBackend, type OpenAiCompatibleOptions } from "../../src/llm/backends/openai-compatible.backend.ts";
import { FAKE_UPSTREAM_REPLY, startFakeUpstream } from "../helpers/fake-upstream.ts";
import { collectEvents as collect, expectAppErrorWithRetry } from "./llm-test-kit.ts";

const upstream = startFakeUpstream();
afterAll(() => upstream.close());
afterEach(() => upstream.setMode({ kind: "reply" }));

const request = (overrides: Partial<GenerateRequest> = {}): GenerateRequest => ({
  messages: [{ role: "user", content: "What is the refund policy?" }],
  temperature: 0,
  maxTokens: 64,
  ...overrides,
});

const backendFor = (overrides: Partial<OpenAiCompatibleOptions> = {}) =>
  createOpenAiCompatibleBackend({ baseUrl: upstream.url, model: "fake-model", apiKey: "sk-test", ...overrides });

const expectBackendDown = (run: Promise<unknown>) => expectAppErrorWithRetry(run, "backend_down");

describe("openai-compatible backend", () => {
  test("it sends the model, messages, limits and key the way the chat-completions API expects", async () => {
    await collect(backendFor().generate(request()));
    const call = upstream.calls.at(-1);
    expect(call?.path).toBe("/v1/chat/completions");
    expect(call?.headers.authorization).toBe("Bearer sk-test");
    expect(call?.body).toMatchObject({
      model: "fake-model",
      stream: true,
      max_tokens: 64,
      temperature: 0,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "What is the refund policy?" }],
    });
  });

  test("the streamed deltas add up to the upstream's reply and usage comes from its usage chunk", async () => {
    const events = await collect(backendFor().generate(request()));
    const text = events.map((e) => (e.type === "delta" ? e.text : "")).join("");
    expect(text).toBe(FAKE_UPSTREAM_REPLY);
    expect(events.at(-1)).toEqual({
      type: "done",
      promptTokens: 5,
      completionTokens: FAKE_UPSTREAM_REPLY.split(" ").length,
      finishReason: "stop",
    });
  });

  test("complete returns the whole reply of a non-streaming call", async () => {
    upstream.setMode({ kind: "reply", text: "What is the refund policy for shoes?" });
    const text = await backendFor().complete?.({ ...request(), timeoutMs: 5_000 });
    expect(text).toBe("What is the refund policy for shoes?");
    expect(upstream.calls.at(-1)?.body?.stream).toBe(false);
  });

  test("an upstream 500 becomes backend_down with Retry-After", async () => {
    upstream.setMode({ kind: "fail", status: 500 });
    await expectBackendDown(collect(backendFor().generate(request())));
    await expectBackendDown(backendFor().complete?.(request()) ?? Promise.resolve());
  });

  test("a refused connection becomes backend_down", async () => {
    const gone = startFakeUpstream();
    await gone.close();
    await expectBackendDown(collect(createOpenAiCompatibleBackend({ baseUrl: gone.url, model: "m" }).generate(request())));
  });

  test("an upstream that never sends headers trips the connect timeout", async () => {
    upstream.setMode({ kind: "hang", stage: "before-headers" });
    await expectBackendDown(collect(backendFor({ connectTimeoutMs: 100 }).generate(request())));
    await upstream.waitForAbort();
  });

  test("an upstream that sends headers but no token trips the first-token timeout", async () => {
    upstream.setMode({ kind: "hang", stage: "before-first-token" });
    await expectBackendDown(collect(backendFor({ firstTokenTimeoutMs: 100 }).generate(request())));
    await upstream.waitForAbort();
  });

  test("a stream that outlives the total timeout becomes backend_down", async () => {
    upstream.setMode({ kind: "slow", delayMs: 20, tokens: 10_000 });
    await expectBackendDown(collect(backendFor({ totalTimeoutMs: 300 }).generate(request())));
    await upstream.waitForAbort();
  });

  test("a complete call that outlives its timeoutMs becomes backend_down", async () => {
    upstream.setMode({ kind: "hang", stage: "before-headers" });
    await expectBackendDown(backendFor().complete?.({ ...request(), timeoutMs: 100 }) ?? Promise.resolve());
  });

  test("a frame that is not JSON becomes backend_down", async () => {
    upstream.setMode({ kind: "malformed" });
    await expectBackendDown(collect(backendFor().generate(request())));
  });

  test("a stream cut off before finish_reason or [DONE] becomes backend_down", async () => {
    upstream.setMode({ kind: "truncated" });
    await expectBackendDown(collect(backendFor().generate(request())));
  });

  test("aborting the request closes the upstream connection", async () => {
    upstream.setMode({ kind: "slow", delayMs: 20, tokens: 10_000 });
    const controller = new AbortController();
    const events: GenerateEvent[] = [];
    for await (const e of backendFor().generate(request({ signal: controller.signal }))) {
      events.push(e);
      controller.abort();
    }
    expect(events).toHaveLength(1);
    const call = await upstream.waitForAbort();
    expect(call.aborted).toBe(true);
  });

  test("a consumer that stops reading early also closes the upstream connection", async () => {
    upstream.setMode({ kind: "slow", delayMs: 20, tokens: 10_000 });
    for await (const _ of backendFor().generate(request())) break;
    expect((await upstream.waitForAbort()).aborted).toBe(true);
  });
});
