import type { ChatEvent, SourcesEvent } from "../../../chat/chat.types.ts";

/**
 * Holds a chat event stream back until its outcome is known: the first text, the end, or a failure. A
 * failure before any text is thrown, so the visitor gets a real HTTP status (503 with Retry-After, not a
 * 200 stream with an error inside). When the model is slow to start, the stream is committed after
 * `commitAfterMs` anyway so heartbeats can flow; a later failure then becomes an error frame.
 */
export async function primeEvents(
  events: AsyncGenerator<ChatEvent>,
  commitAfterMs = 1500,
): Promise<{ sources: SourcesEvent; rest: AsyncGenerator<ChatEvent> }> {
  const first = await events.next();
  if (first.done || first.value.type !== "sources") throw new Error("chat stream did not start with sources");
  const sources = first.value;
  const head: ChatEvent[] = [];
  let pending: Promise<IteratorResult<ChatEvent>> | null = events.next();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"wait">((resolve) => {
    timer = setTimeout(() => resolve("wait"), commitAfterMs);
  });
  try {
    const r = await Promise.race([pending, timeout]);
    if (r !== "wait") {
      pending = null;
      if (!r.done && r.value.type === "error") throw r.value.error;
      if (!r.done) head.push(r.value);
    }
  } finally {
    clearTimeout(timer);
  }
  async function* rest(): AsyncGenerator<ChatEvent> {
    yield* head;
    if (pending) {
      const r = await pending;
      if (r.done) return;
      yield r.value;
    }
    yield* events;
  }
  return { sources, rest: rest() };
}

export { collectAnswer } from "../../../chat/collect-answer.ts";
