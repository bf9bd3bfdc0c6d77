import { afterAll, describe, expect, test } from "bun:test";
import type { GenerateEvent, GenerateRequest } from "../../src/llm/backend.ts";
import { createLlamaCppBackend } from "../../src/llm/backends/llama-cpp.backend.ts";
import { collectEvents, expectAppErrorWithRetry, TINY_LLAMA_PATH, textOf } from "./llm-test-kit.ts";

const backend = createLlamaCppBackend({ modelPath: TINY_LLAMA_PATH, threads: 1, contextSize: 1024 });
afterAll(() => backend.close());

const request = (overrides: Partial<GenerateRequest> = {}): GenerateRequest => ({
  messages: [{ role: "user", content: "Tell me about refunds." }],
  temperature: 0,
  maxTokens: 16,
  ...overrides,
});

describe("llama-cpp backend", () => {
  test("tokens are counted with the model's own tokenizer", async () => {
    // Llama 2's SentencePiece vocabulary has whole-word pieces for both words.
    expect(await backend.countTokens("hello world")).toBe(2);
  });

  test("maxTokens caps the generation and the done event says so", async () => {
    const events = await collectEvents(backend.generate(request({ maxTokens: 5 })));
    expect(events.at(-1)).toMatchObject({ type: "done", completionTokens: 5, finishReason: "length" });
  });

  test("with temperature 0 the same prompt gives the same text", async () => {
    const first = textOf(await collectEvents(backend.generate(request())));
    const second = textOf(await collectEvents(backend.generate(request())));
    expect(second).toBe(first);
  });

  test("complete returns the generated text as one string", async () => {
    const text = await backend.complete?.({ ...request(), timeoutMs: 30_000 });
    expect(text).toBe(textOf(await collectEvents(backend.generate(request()))));
  });

  test("killing the worker mid-generation yields backend_down and the next request starts a new worker", async () => {
    const events: GenerateEvent[] = [];
    let killedPid: number | undefined;
    const run = (async () => {
      for await (const e of backend.generate(request({ maxTokens: 3_000 }))) {
        events.push(e);
        if (killedPid === undefined) {
          killedPid = backend.workerPid();
          process.kill(killedPid ?? -1, "SIGKILL");
        }
      }
    })();
    await expectAppErrorWithRetry(run, "backend_down");
    expect(killedPid).toBeNumber();
    expect(events.some((e) => e.type === "done")).toBe(false);

    const after = await collectEvents(backend.generate(request()));
    expect(after.at(-1)?.type).toBe("done");
    expect(backend.workerPid()).toBeNumber();
    expect(backend.workerPid()).not.toBe(killedPid);
  });

  test("a model file that cannot be loaded yields backend_down", async () => {
    const broken = createLlamaCppBackend({ modelPath: "/nonexistent/model.gguf" });
    await expectAppErrorWithRetry(collectEvents(broken.generate(request())), "backend_down");
    await broken.close();
  });

  test("a worker command that cannot be started yields backend_down", async () => {
    const broken = createLlamaCppBackend({ modelPath: TINY_LLAMA_PATH, command: ["/nonexistent/docchat-binary"] });
    await expectAppErrorWithRetry(collectEvents(broken.generate(request())), "backend_down");
    await broken.close();
  });

  test("the worker runs from any command that calls runLlamaWorker, as a compiled binary's hidden command does", async () => {
    const workerModule = new URL("../../src/llm/backends/llama-worker.ts", import.meta.url).pathname;
    const script = `const { runLlamaWorker } = await import(${JSON.stringify(workerModule)}); await runLlamaWorker();`;
    const custom = createLlamaCppBackend({ modelPath: TINY_LLAMA_PATH, command: [process.execPath, "-e", script] });
    const events = await collectEvents(custom.generate(request()));
    expect(events.at(-1)?.type).toBe("done");
    await custom.close();
  });

  test("a closed backend refuses new requests with backend_down", async () => {
    const closing = createLlamaCppBackend({ modelPath: TINY_LLAMA_PATH });
    await closing.close();
    await expectAppErrorWithRetry(collectEvents(closing.generate(request())), "backend_down");
  });
});
