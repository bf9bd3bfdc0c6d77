import type { ChatEvent, SourcesEvent } from "../../../chat/chat.types.ts";
import { type AppError, localizedMessage, toErrorBody } from "../../../errors/index.ts";
import type { SseFrame } from "../../sse.ts";

export interface V1StreamMeta {
  model: string;
  created: number;
  includeUsage: boolean;
  /** contextual extras on the final chunk */
  extras: (sources: SourcesEvent) => Record<string, unknown>;
}

/**
 * v1 stream: `chat.completion.chunk` frames as the OpenAI wire format has them (role first, then content
 * deltas, then an empty delta with finish_reason), conversation_id on every chunk, chat_log_id on the final
 * one, an optional usage chunk, then `[DONE]`. A failure mid-stream is one frame with an `error` object and
 * the stream ends without `[DONE]`, which is how the openai client recognises it.
 */
export async function* v1Frames(sources: SourcesEvent, rest: AsyncIterable<ChatEvent>, meta: V1StreamMeta): AsyncGenerator<SseFrame> {
  const base = {
    id: sources.completionId,
    object: "chat.completion.chunk",
    created: meta.created,
    model: meta.model,
    conversation_id: sources.conversationId,
  };
  const choice = (delta: Record<string, string>, finish: string | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finish,
  });
  yield { ...base, choices: [choice({ role: "assistant", content: "" })] };
  for await (const ev of rest) {
    if (ev.type === "delta") yield { ...base, choices: [choice({ content: ev.text })] };
    else if (ev.type === "error") {
      yield errorFrame(ev.error);
      return;
    } else if (ev.type === "done") {
      yield { ...base, chat_log_id: ev.chatLogId, ...meta.extras(sources), choices: [choice({}, ev.finishReason)] };
      if (meta.includeUsage) {
        const u = ev.usage;
        yield {
          ...base,
          chat_log_id: ev.chatLogId,
          choices: [],
          usage: { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.totalTokens },
        };
      }
      yield "[DONE]";
      return;
    }
  }
}

export const errorFrame = (e: AppError): SseFrame => toErrorBody(e);

/** Native stream (/api/stream/): {token}…, then {done, conversation_id, tokens_count, chat_log_id}; {error} on failure. */
export async function* nativeFrames(sources: SourcesEvent, rest: AsyncIterable<ChatEvent>, lang?: string): AsyncGenerator<SseFrame> {
  for await (const ev of rest) {
    if (ev.type === "delta") yield { token: ev.text };
    else if (ev.type === "error") {
      yield { error: localizedMessage(ev.error, lang), code: ev.error.code };
      return;
    } else if (ev.type === "done") {
      yield { done: true, conversation_id: sources.conversationId, tokens_count: ev.usage.totalTokens, chat_log_id: ev.chatLogId };
      return;
    }
  }
}
