import type { DoneEvent, SourcesEvent } from "../../../chat/chat.types.ts";
import type { AppError } from "../../../errors/index.ts";
import { chunksView } from "../chat/chat-views.ts";
import { responseIdFor } from "./responses.schemas.ts";

export interface ResponseMeta {
  model: string;
  created: number;
  temperature: number;
  maxOutputTokens: number | null;
  previousResponseId: string | null;
  includeChunks: boolean;
}

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

export const messageIdOf = (s: SourcesEvent) => `msg_${s.completionId.slice(s.completionId.indexOf("-") + 1)}`;

export const outputText = (text: string) => ({ type: "output_text" as const, text, annotations: [] as never[], logprobs: [] as never[] });

export const messageItem = (
  s: SourcesEvent,
  status: "in_progress" | "completed" | "incomplete",
  content: ReturnType<typeof outputText>[],
) => ({
  id: messageIdOf(s),
  type: "message" as const,
  status,
  role: "assistant" as const,
  content,
});

/**
 * The Responses API `response` object, with docchat's additive fields (conversation_id, sources, search_query,
 * refused, chat_log_id once recorded, chunks when asked for). `usage` is null until the answer is done.
 */
export function responseObject(
  s: SourcesEvent,
  meta: ResponseMeta,
  state: { status: ResponseStatus; text?: string; done?: DoneEvent; error?: AppError },
) {
  const { done } = state;
  const itemStatus = state.status === "in_progress" || state.status === "failed" ? "in_progress" : state.status;
  return {
    id: responseIdFor(s.completionId, s.conversationId),
    object: "response" as const,
    created_at: meta.created,
    status: state.status,
    background: false,
    error: state.error ? { code: state.error.code, message: state.error.message } : null,
    incomplete_details: state.status === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: null,
    max_output_tokens: meta.maxOutputTokens,
    model: meta.model,
    output: state.text === undefined ? [] : [messageItem(s, itemStatus, [outputText(state.text)])],
    parallel_tool_calls: false,
    previous_response_id: meta.previousResponseId,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: meta.temperature,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage: done
      ? {
          input_tokens: done.usage.promptTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: done.usage.completionTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: done.usage.totalTokens,
        }
      : null,
    user: null,
    metadata: {},
    conversation_id: s.conversationId,
    sources: s.sources,
    search_query: s.searchQuery,
    refused: s.refused,
    confidence: s.confidence,
    ...(done ? { chat_log_id: done.chatLogId } : {}),
    ...(meta.includeChunks ? { chunks: chunksView(s) } : {}),
  };
}
