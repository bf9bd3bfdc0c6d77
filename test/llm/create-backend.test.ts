import { describe, expect, test } from "bun:test";
import { isAppError } from "../../src/errors/index.ts";
import { createLlmBackend } from "../../src/llm/create-backend.ts";
import { composeAnswer } from "../../src/rag/compose-answer.ts";
import { startFakeUpstream } from "../helpers/fake-upstream.ts";
import { collectEvents, textOf } from "./llm-test-kit.ts";

describe("createLlmBackend", () => {
  test("each kind builds the matching backend", async () => {
    expect(createLlmBackend({ kind: "extractive" }, { composer: composeAnswer }).name).toBe("extractive");
    expect(createLlmBackend({ kind: "openai", url: "http://127.0.0.1:1/v1", model: "m" }).name).toBe("openai");
    const llama = createLlmBackend({ kind: "llama", model: "/nonexistent.gguf" });
    expect(llama.name).toBe("llama");
    await llama.close();
  });

  test("an openai backend without url or model is refused with a message naming the missing setting", () => {
    let error: unknown;
    try {
      createLlmBackend({ kind: "openai", model: "m" });
    } catch (e) {
      error = e;
    }
    expect(isAppError(error) && error.code).toBe("bad_request");
    expect(isAppError(error) && error.param).toBe("url");
  });

  test("a configured openai backend talks to its upstream with the api key", async () => {
    const upstream = startFakeUpstream({ mode: { kind: "reply", text: "Hi there." } });
    const backend = createLlmBackend({
      kind: "openai",
      url: upstream.url,
      model: "m",
      apiKey: "k",
      concurrency: 2,
      maxQueue: 2,
    });
    const events = await collectEvents(backend.generate({ messages: [{ role: "user", content: "hi" }], temperature: 0, maxTokens: 8 }));
    expect(textOf(events)).toBe("Hi there.");
    expect(upstream.calls[0]?.headers.authorization).toBe("Bearer k");
    await upstream.close();
  });
});
