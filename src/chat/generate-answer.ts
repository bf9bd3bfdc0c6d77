import { appError, isAppError } from "../errors/index.ts";
import type { GenerateRequest, LlmBackend } from "../llm/backend.ts";

export type GenerationStep =
  | { type: "delta"; text: string }
  /** the model finished (complete) or the caller went away (partial: counted with the backend's tokenizer) */
  | { type: "end"; text: string; promptTokens: number; completionTokens: number; finishReason: "stop" | "length"; complete: boolean }
  | { type: "failed"; error: ReturnType<typeof appError>; text: string };

/** Streams one generation and always ends with exactly one `end` or `failed` step; never throws. */
export async function* generateAnswer(backend: LlmBackend, req: GenerateRequest & { signal: AbortSignal }): AsyncGenerator<GenerationStep> {
  let text = "";
  let done: { promptTokens: number; completionTokens: number; finishReason: "stop" | "length" } | null = null;
  try {
    for await (const ev of backend.generate(req)) {
      if (ev.type === "delta") {
        text += ev.text;
        yield { type: "delta", text: ev.text };
      } else done = ev;
    }
  } catch (e) {
    if (!req.signal.aborted) {
      yield { type: "failed", error: isAppError(e) ? e : appError("backend_down", { cause: e }), text };
      return;
    }
  }
  if (done) {
    yield { type: "end", text, ...done, complete: true };
    return;
  }
  // Aborted (or ended without `done`): charge what the model actually produced.
  // a quoting backend (compose) reads no prompt, so none is charged
  const promptTokens = text && !backend.compose ? await backend.countTokens(req.messages.map((m) => m.content).join("\n")) : 0;
  const completionTokens = text ? await backend.countTokens(text) : 0;
  yield { type: "end", text, promptTokens, completionTokens, finishReason: "stop", complete: false };
}
