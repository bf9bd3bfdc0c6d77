import { appError } from "../errors/index.ts";
import type { ChatEvent, DoneEvent, SourcesEvent } from "./chat.types.ts";

/** Drains a non-streaming answer; a failure anywhere is thrown as the HTTP error. */
export async function collectAnswer(events: AsyncGenerator<ChatEvent>): Promise<{ sources: SourcesEvent; text: string; done: DoneEvent }> {
  let sources: SourcesEvent | undefined;
  let text = "";
  for await (const ev of events) {
    if (ev.type === "sources") sources = ev;
    else if (ev.type === "delta") text += ev.text;
    else if (ev.type === "error") throw ev.error;
    else if (sources) return { sources, text, done: ev };
  }
  // Only when the visitor went away mid-answer: nobody reads this response.
  throw appError("internal_error");
}
