import { expect } from "bun:test";
import { fileURLToPath } from "node:url";
import { isAppError } from "../../src/errors/index.ts";
import type { GenerateEvent } from "../../src/llm/backend.ts";

/** The shared test model: random weights, no chat template (see ../shared/models/README.md). */
export const TINY_LLAMA_PATH = fileURLToPath(new URL("../../../shared/models/llama-2-tiny-random.gguf", import.meta.url));

export async function collectEvents(events: AsyncIterable<GenerateEvent>): Promise<GenerateEvent[]> {
  const out: GenerateEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

export function textOf(events: GenerateEvent[]): string {
  return events.map((e) => (e.type === "delta" ? e.text : "")).join("");
}

/** Awaits `run` and asserts it failed with the given AppError code and a positive Retry-After. */
export async function expectAppErrorWithRetry(run: Promise<unknown>, code: string): Promise<void> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isAppError(error) ? error.code : error).toBe(code);
  expect(isAppError(error) && Number(error.headers?.["Retry-After"])).toBeGreaterThan(0);
}
