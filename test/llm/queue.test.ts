import { describe, expect, test } from "bun:test";
import type { GenerateRequest } from "../../src/llm/backend.ts";
import { createExtractiveBackend } from "../../src/llm/backends/extractive.backend.ts";
import { createOpenAiCompatibleBackend } from "../../src/llm/backends/openai-compatible.backend.ts";
import { createBoundedBackend } from "../../src/llm/queue.ts";
import { observeQueue } from "../../src/llm/queue-observer.ts";
import { composeAnswer } from "../../src/rag/compose-answer.ts";
import { startFakeUpstream } from "../helpers/fake-upstream.ts";
import { collectEvents, expectAppErrorWithRetry } from "./llm-test-kit.ts";

const request = (signal?: AbortSignal): GenerateRequest => ({
  messages: [{ role: "user", content: "What are the opening hours?" }],
  question: "What are the opening hours?",
  passages: [{ source: "a.txt", text: "The shop opens at nine. It closes at six in the evening." }],
  temperature: 0,
  maxTokens: 50,
  signal,
});

/** Starts a generation and reads its first event, so it holds its slot until `rest` is read. */
async function occupySlot(backend: ReturnType<typeof createBoundedBackend>, signal?: AbortSignal) {
  const it = backend.generate(request(signal))[Symbol.asyncIterator]();
  const first = await it.next();
  return { first, rest: () => collectEvents({ [Symbol.asyncIterator]: () => it }) };
}

describe("bounded backend", () => {
  test("a quoting backend keeps its compose through the queue and its observer, so sources name what it quotes", () => {
    const inner = createExtractiveBackend(composeAnswer);
    const observer = { waiting: () => {}, waited: () => {} };
    const wrapped = [
      createBoundedBackend(inner, { concurrency: 1, maxQueue: 0 }),
      observeQueue(inner, (b) => createBoundedBackend(b, { concurrency: 1, maxQueue: 0 }), observer),
    ];
    for (const b of wrapped) expect(b.compose?.(request())).toEqual(inner.compose?.(request()) ?? { text: "", used: [], truncated: false });
  });

  test("requests beyond the running and queued limits fail fast with overloaded and Retry-After", async () => {
    const bounded = createBoundedBackend(createExtractiveBackend(composeAnswer), { concurrency: 1, maxQueue: 1 });
    const running = await occupySlot(bounded);
    const queued = collectEvents(bounded.generate(request()));
    await expectAppErrorWithRetry(collectEvents(bounded.generate(request())), "overloaded");
    await running.rest();
    expect((await queued).at(-1)?.type).toBe("done");
  });

  test("a queued request runs once a slot frees up", async () => {
    const bounded = createBoundedBackend(createExtractiveBackend(composeAnswer), { concurrency: 1, maxQueue: 5 });
    const running = await occupySlot(bounded);
    const queued = collectEvents(bounded.generate(request()));
    const rest = await running.rest();
    expect(rest.at(-1)?.type).toBe("done");
    expect((await queued).at(-1)?.type).toBe("done");
  });

  test("a request aborted while queued gives up its place and yields nothing", async () => {
    const bounded = createBoundedBackend(createExtractiveBackend(composeAnswer), { concurrency: 1, maxQueue: 1 });
    const running = await occupySlot(bounded);
    const controller = new AbortController();
    const queued = collectEvents(bounded.generate(request(controller.signal)));
    await Bun.sleep(0);
    controller.abort();
    expect(await queued).toEqual([]);
    // its place is free again
    const next = collectEvents(bounded.generate(request()));
    await running.rest();
    expect((await next).at(-1)?.type).toBe("done");
  });

  test("a failing backend releases its slot", async () => {
    const upstream = startFakeUpstream({ mode: { kind: "fail" } });
    const bounded = createBoundedBackend(createOpenAiCompatibleBackend({ baseUrl: upstream.url, model: "m" }), {
      concurrency: 1,
      maxQueue: 0,
    });
    await expectAppErrorWithRetry(collectEvents(bounded.generate(request())), "backend_down");
    upstream.setMode({ kind: "reply" });
    expect((await collectEvents(bounded.generate(request()))).at(-1)?.type).toBe("done");
    expect(await bounded.complete?.({ ...request() })).toBeString();
    await upstream.close();
  });
});
