import type { ChatEvent, SourcesEvent } from "../../../chat/chat.types.ts";
import type { SseFrame } from "../../sse.ts";
import { messageIdOf, messageItem, outputText, type ResponseMeta, responseObject } from "./responses-views.ts";

/** Every Responses API stream event is sent as `event: <type>`; the openai client relies on it for `error`. */
export const responsesEventName = (frame: object): string | undefined => (frame as { type?: unknown }).type as string | undefined;

/**
 * The Responses API stream: response.created, response.in_progress, the message item and its output_text part
 * opened, output_text deltas, then the part, item and response closed (response.completed, or
 * response.incomplete when max_output_tokens cut the answer). A failure after the stream started is an `error`
 * event followed by response.failed, as OpenAI sends it; there is no `[DONE]` in this format.
 */
export async function* responsesFrames(
  sources: SourcesEvent,
  rest: AsyncIterable<ChatEvent>,
  meta: ResponseMeta,
): AsyncGenerator<SseFrame> {
  let seq = 0;
  const ev = (type: string, body: Record<string, unknown>) => ({ type, sequence_number: seq++, ...body });
  const itemId = messageIdOf(sources);
  const part = { item_id: itemId, output_index: 0, content_index: 0 };
  let text = "";
  yield ev("response.created", { response: responseObject(sources, meta, { status: "in_progress" }) });
  yield ev("response.in_progress", { response: responseObject(sources, meta, { status: "in_progress" }) });
  yield ev("response.output_item.added", { output_index: 0, item: messageItem(sources, "in_progress", []) });
  yield ev("response.content_part.added", { ...part, part: outputText("") });
  for await (const e of rest) {
    if (e.type === "delta") {
      text += e.text;
      yield ev("response.output_text.delta", { ...part, delta: e.text, logprobs: [] });
    } else if (e.type === "error") {
      const { code, message, param } = e.error;
      yield ev("error", { code, message, param: param ?? null });
      yield ev("response.failed", { response: responseObject(sources, meta, { status: "failed", text, error: e.error }) });
      return;
    } else if (e.type === "done") {
      const status = e.finishReason === "length" ? "incomplete" : "completed";
      yield ev("response.output_text.done", { ...part, text, logprobs: [] });
      yield ev("response.content_part.done", { ...part, part: outputText(text) });
      yield ev("response.output_item.done", { output_index: 0, item: messageItem(sources, status, [outputText(text)]) });
      yield ev(`response.${status}`, { response: responseObject(sources, meta, { status, text, done: e }) });
      return;
    }
  }
}
