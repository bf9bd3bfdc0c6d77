import type { DoneEvent, SourcesEvent } from "../../../chat/chat.types.ts";

export type CompletionFlavour = "default" | "with-sources" | "contextual";

const round = (n: number) => Math.round(n * 10_000) / 10_000;

/** Retrieved passages on the wire: verbatim text, document name, relevance 0..1. */
export const chunksView = (s: SourcesEvent) =>
  s.hits.map((h) => ({
    text: h.text,
    source: h.source,
    score: round(h.relevance),
    // additive citation fields (Versioning rule 2): where in the document the passage is
    ...(h.pageStart !== null ? { page_start: h.pageStart, page_end: h.pageEnd ?? h.pageStart } : {}),
    ...(h.rowStart !== null ? { row_start: h.rowStart, row_end: h.rowEnd ?? h.rowStart } : {}),
    ...(h.headingPath ? { heading_path: h.headingPath } : {}),
  }));

/** The non-standard, additive fields each endpoint adds to the chat format. */
export function flavourFields(flavour: CompletionFlavour, s: SourcesEvent, includeChunks: boolean): Record<string, unknown> {
  const common = { conversation_id: s.conversationId, sources: s.sources, refused: s.refused, confidence: s.confidence };
  if (flavour === "with-sources") return { ...common, chunks: chunksView(s) };
  if (flavour === "contextual")
    return {
      ...common,
      search_query: s.searchQuery,
      retrieval_fallback: s.retrievalFallback,
      ...(includeChunks ? { chunks: chunksView(s) } : {}),
    };
  return { ...common, search_query: s.searchQuery };
}

export function completionBody(input: {
  model: string;
  created: number;
  sources: SourcesEvent;
  text: string;
  done: DoneEvent;
  flavour: CompletionFlavour;
  includeChunks: boolean;
}) {
  const { sources: s, done } = input;
  return {
    id: s.completionId,
    object: "chat.completion" as const,
    created: input.created,
    model: input.model,
    choices: [{ index: 0, message: { role: "assistant" as const, content: input.text }, logprobs: null, finish_reason: done.finishReason }],
    usage: { prompt_tokens: done.usage.promptTokens, completion_tokens: done.usage.completionTokens, total_tokens: done.usage.totalTokens },
    chat_log_id: done.chatLogId,
    ...flavourFields(input.flavour, s, input.includeChunks),
  };
}
