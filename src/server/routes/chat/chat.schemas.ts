import { t } from "elysia";
import type { ChatMessageIn } from "../../../chat/chat.types.ts";
import { CHAT_BOUNDS, checkHistory } from "../../../chat/chat-bounds.ts";
import { appError } from "../../../errors/index.ts";
import { CHAT_ERRORS, publicDoc } from "../../openapi/public-doc.ts";
import { chatCompletionChunkSchema, chatCompletionSchema } from "../../openapi/public-schemas.ts";

// OpenAI clients may send content as text parts, and `developer` as the newer name of `system`.
const Content = t.Union([t.String(), t.Array(t.Object({ type: t.String(), text: t.Optional(t.String()) }))]);
const Role = t.Union([t.Literal("user"), t.Literal("assistant"), t.Literal("system"), t.Literal("developer")]);
const Message = t.Object({ role: Role, content: t.Union([Content, t.Null()]) });

const temperature = t.Number({ minimum: CHAT_BOUNDS.temperature.min, maximum: CHAT_BOUNDS.temperature.max });
const maxTokens = t.Integer({ minimum: CHAT_BOUNDS.maxTokens.min, maximum: CHAT_BOUNDS.maxTokens.max });
const threadKey = t.String({ maxLength: CHAT_BOUNDS.conversationIdChars });

/** ChatCompletionRequest. Fields not listed here are tolerated and dropped (stock clients send more). */
export const chatCompletionBody = t.Object({
  model: t.String({ minLength: 1, maxLength: 200 }),
  messages: t.Optional(t.Array(Message, { maxItems: CHAT_BOUNDS.messages })),
  message: t.Optional(t.String()),
  conversation_id: t.Optional(threadKey),
  user: t.Optional(threadKey),
  stream: t.Optional(t.Boolean()),
  stream_options: t.Optional(t.Union([t.Object({ include_usage: t.Optional(t.Boolean()) }), t.Null()])),
  include_chunks: t.Optional(
    t.Boolean({
      description:
        "honoured only by /api/v1/chat/completions-contextual (chunks once, at top level); /api/v1/chat/completions never returns chunks, /completions-with-sources always does",
    }),
  ),
  temperature: t.Optional(t.Union([temperature, t.Null()])),
  max_tokens: t.Optional(t.Union([maxTokens, t.Null()])),
  max_completion_tokens: t.Optional(t.Union([maxTokens, t.Null()])),
  visitor_email: t.Optional(t.String({ maxLength: 254 })),
});

export type ChatCompletionBody = typeof chatCompletionBody.static;

/** GET /api/v1/chat/completions: the browser EventSource form (the key comes as api_key). */
export const chatStreamQuery = t.Object({
  message: t.String({ minLength: 1 }),
  stream: t.Optional(t.String()),
  api_key: t.Optional(t.String()),
  conversation_id: t.Optional(threadKey),
  visitor_email: t.Optional(t.String({ maxLength: 254 })),
  model: t.Optional(t.String()),
});

type ContentIn = string | { type: string; text?: string }[] | null;

const text = (c: ContentIn): string =>
  typeof c === "string" ? c : Array.isArray(c) ? c.map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("") : "";

/**
 * Of a list of messages (each with its index in the request): the last user message is the question, the user and
 * assistant messages before it the history, bounded, with a 400 naming the request's own field (`fieldOf(index)`).
 * Other roles are dropped: they never reach a model. Null when there is no user message.
 */
export function splitTurns(
  messages: { role: string; content: string; at: number }[],
  fieldOf: (at: number) => string,
): { question: string; questionParam: string; history: ChatMessageIn[] } | null {
  const turns = messages.filter(
    (m): m is { role: "user" | "assistant"; content: string; at: number } => m.role === "user" || m.role === "assistant",
  );
  let last = -1;
  for (let i = turns.length - 1; i >= 0 && last < 0; i--) if (turns[i]?.role === "user") last = i;
  if (last < 0) return null;
  const earlier = turns.slice(0, last);
  checkHistory(earlier, (i) => fieldOf(earlier[i]?.at ?? i));
  const q = turns[last] as { content: string; at: number };
  return { question: q.content, questionParam: fieldOf(q.at), history: earlier.map(({ role, content }) => ({ role, content })) };
}

/**
 * The question is the last `user` message (or `message` when no messages are sent); user and assistant
 * messages before it are the history; `system`/`developer` messages are dropped here and never reach a model.
 * Every text is bounded, and a 400 names the exact field (`messages[3].content`).
 */
export function questionAndHistory(body: ChatCompletionBody): { question: string; questionParam: string; history: ChatMessageIn[] } {
  const messages = (body.messages ?? []).map((m, at) => ({ role: m.role, content: text(m.content), at }));
  const turns = splitTurns(messages, (at) => `messages[${at}].content`);
  if (turns) return turns;
  if (body.message !== undefined) return { question: body.message, questionParam: "message", history: [] };
  throw appError("bad_request", { param: "messages", message: "messages must contain a user message (or send message)." });
}

/** A chat completion endpoint: the completion body in, the completion (or its SSE chunks with stream true) out. */
const completionDoc = (summary: string, description: string) =>
  publicDoc({
    tag: "Chat completions",
    summary,
    description,
    body: { json: chatCompletionBody },
    ok: [{ schema: chatCompletionSchema, sse: chatCompletionChunkSchema }],
    errors: CHAT_ERRORS,
  });

/** How these routes appear in the public OpenAPI document (openapi/public-openapi.ts). */
export const chatDocs = {
  completions: completionDoc(
    "Answer a question from the deployment's documents (OpenAI chat completions format).",
    "The last user message is the question; earlier user/assistant messages are history (style A), or send only the new message with a conversation_id (style B). " +
      "System messages are ignored: the deployment's persona governs. An ungrounded question is refused before any model call and costs nothing. " +
      "With stream true the answer is SSE `chat.completion.chunk` frames ending with `data: [DONE]`; a failure after the stream started is one frame with an `error` object.",
  ),
  stream: publicDoc({
    tag: "Chat completions",
    summary: "The same answer as an SSE stream for a browser EventSource (key as the api_key query parameter).",
    query: chatStreamQuery,
    ok: [{ sse: chatCompletionChunkSchema }],
    errors: CHAT_ERRORS,
  }),
  withSources: completionDoc("A chat completion that always returns the retrieved chunks.", "400 sources_unsupported for a Private GPT deployment."),
  contextual: completionDoc(
    "A chat completion with search_query, retrieval_fallback and, when include_chunks is true, the chunks.",
    "400 contextual_unsupported for a Private GPT deployment.",
  ),
};
