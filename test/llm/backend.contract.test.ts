import { afterAll, describe, expect, test } from "bun:test";
import type { GenerateEvent, GenerateRequest, LlmBackend } from "../../src/llm/backend.ts";
import { createExtractiveBackend } from "../../src/llm/backends/extractive.backend.ts";
import { createLlamaCppBackend } from "../../src/llm/backends/llama-cpp.backend.ts";
import { createOpenAiCompatibleBackend } from "../../src/llm/backends/openai-compatible.backend.ts";
import { composeAnswer } from "../../src/rag/compose-answer.ts";
import { startFakeUpstream } from "../helpers/fake-upstream.ts";
import { collectEvents, TINY_LLAMA_PATH } from "./llm-test-kit.ts";

/** How one backend is exercised by the shared suite; `long` asks for an answer long enough to abort mid-way. */
interface ContractSubject {
  name: string;
  backend: LlmBackend;
  request(opts: { long: boolean; signal?: AbortSignal }): GenerateRequest;
}

const passage = {
  source: "handbook.txt",
  text:
    "Refunds are issued within 14 days of a return. Shipping costs are not refunded for opened items. " +
    "Gift cards cannot be exchanged for cash. A refund goes back to the original payment method.",
};
const question = "How many days until refunds are issued after a return?";
const baseRequest = (opts: { long: boolean; signal?: AbortSignal }): GenerateRequest => ({
  messages: [
    { role: "system", content: "Answer from the passages." },
    { role: "user", content: question },
  ],
  question,
  passages: [passage],
  temperature: 0,
  maxTokens: opts.long ? 400 : 24,
  signal: opts.signal,
});

const upstream = startFakeUpstream();
const subjects: ContractSubject[] = [
  { name: "extractive", backend: createExtractiveBackend(composeAnswer), request: baseRequest },
  {
    name: "openai-compatible",
    backend: createOpenAiCompatibleBackend({ baseUrl: upstream.url, model: "fake-model" }),
    request(opts) {
      upstream.setMode(opts.long ? { kind: "slow", delayMs: 10, tokens: 1_000 } : { kind: "reply" });
      return baseRequest(opts);
    },
  },
  {
    name: "llama-cpp",
    backend: createLlamaCppBackend({ modelPath: TINY_LLAMA_PATH, threads: 1, contextSize: 1024 }),
    request: baseRequest,
  },
];

afterAll(async () => {
  await Promise.all(subjects.map((s) => s.backend.close()));
  await upstream.close();
});

const isDone = (e: GenerateEvent) => e.type === "done";

for (const subject of subjects) {
  describe(`${subject.name} backend contract`, () => {
    test("it streams at least one delta and then exactly one done event with integer token counts", async () => {
      const events = await collectEvents(subject.backend.generate(subject.request({ long: false })));
      expect(events.filter((e) => e.type === "delta").length).toBeGreaterThanOrEqual(1);
      expect(events.filter(isDone)).toHaveLength(1);
      const done = events.at(-1);
      if (done?.type !== "done") throw new Error("the last event is not done");
      // a quoting backend reads no prompt (0 prompt tokens); a model always reads one
      if (subject.backend.compose) expect(done.promptTokens).toBe(0);
      else expect(Number.isInteger(done.promptTokens) && done.promptTokens > 0).toBe(true);
      expect(Number.isInteger(done.completionTokens) && done.completionTokens >= 0).toBe(true);
      expect(["stop", "length"]).toContain(done.finishReason);
    });

    test("every delta carries non-empty text", async () => {
      const events = await collectEvents(subject.backend.generate(subject.request({ long: false })));
      for (const e of events) if (e.type === "delta") expect(e.text.length).toBeGreaterThan(0);
    });

    test("aborting after the first delta ends the stream without more deltas and without a done event", async () => {
      const controller = new AbortController();
      const events: GenerateEvent[] = [];
      for await (const e of subject.backend.generate(subject.request({ long: true, signal: controller.signal }))) {
        events.push(e);
        controller.abort();
      }
      expect(events).toHaveLength(1);
      expect(events[0]?.type).toBe("delta");
    });

    test("a request whose signal is already aborted yields nothing", async () => {
      const controller = new AbortController();
      controller.abort();
      const events = await collectEvents(subject.backend.generate(subject.request({ long: true, signal: controller.signal })));
      expect(events).toEqual([]);
    });

    test("after a consumer stops reading early the next request is answered in full", async () => {
      for await (const _ of subject.backend.generate(subject.request({ long: true }))) break;
      const events = await collectEvents(subject.backend.generate(subject.request({ long: false })));
      expect(events.filter(isDone)).toHaveLength(1);
    });

    test("counting the tokens of a non-empty text gives a positive integer", async () => {
      const count = await subject.backend.countTokens("Refunds are issued within 14 days.");
      expect(Number.isInteger(count)).toBe(true);
      expect(count).toBeGreaterThan(0);
    });
  });
}
