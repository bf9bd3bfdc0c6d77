import { t } from "elysia";
import type { ChatMessageIn } from "../../../chat/chat.types.ts";
import { CHAT_BOUNDS, checkQuestion } from "../../../chat/chat-bounds.ts";
import { CONVERSATION_PREFIX } from "../../../chat/chat-ids.ts";
import { appError } from "../../../errors/index.ts";
import { splitTurns } from "../chat/chat.schemas.ts";
import { CHAT_ERRORS, publicDoc } from "../../openapi/public-doc.ts";
import { responseSchema } from "../../openapi/public-schemas.ts";

// Responses API input items: easy messages ({role, content}) and typed message items ({type: "message", ...}).
// Content is a string or parts (input_text / output_text carry `text`; images and files are dropped).
const Part = t.Object({ type: t.String(), text: t.Optional(t.String()) });
const Item = t.Object({
  type: t.Optional(t.String()),
  role: t.Optional(t.String()),
  content: t.Optional(t.Union([t.String(), t.Array(Part), t.Null()])),
});

const threadKey = t.String({ maxLength: CHAT_BOUNDS.conversationIdChars });

/** The Responses API request (POST /api/v1/responses). Unlisted fields (tools, store, text, reasoning…) are tolerated and dropped. */
export const responsesBody = t.Object({
  model: t.String({ minLength: 1, maxLength: 200 }),
  input: t.Union([t.String(), t.Array(Item, { maxItems: CHAT_BOUNDS.messages })]),
  instructions: t.Optional(t.Union([t.String(), t.Null()])),
  previous_response_id: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()])),
  conversation: t.Optional(t.Union([threadKey, t.Object({ id: threadKey }), t.Null()])),
  conversation_id: t.Optional(threadKey),
  user: t.Optional(threadKey),
  stream: t.Optional(t.Union([t.Boolean(), t.Null()])),
  temperature: t.Optional(t.Union([t.Number({ minimum: CHAT_BOUNDS.temperature.min, maximum: CHAT_BOUNDS.temperature.max }), t.Null()])),
  max_output_tokens: t.Optional(t.Union([t.Integer({ minimum: CHAT_BOUNDS.maxTokens.min, maximum: CHAT_BOUNDS.maxTokens.max }), t.Null()])),
  include_chunks: t.Optional(t.Boolean()),
  visitor_email: t.Optional(t.String({ maxLength: 254 })),
});

export type ResponsesBody = typeof responsesBody.static;

const RESPONSE_PREFIX = "resp_";
const HEX24 = /^[0-9a-f]{24}$/;

/**
 * A response id carries the completion and the conversation it belongs to (`resp_<completion><conversation>`),
 * so `previous_response_id` continues that thread without a lookup table. Knowing a response id gives no more
 * than knowing its conversation_id, which the caller was handed in the same response.
 */
export function responseIdFor(completionId: string, conversationId: string): string {
  const c = completionId.slice(completionId.indexOf("-") + 1);
  const v = conversationId.slice(CONVERSATION_PREFIX.length);
  return HEX24.test(c) && HEX24.test(v) ? `${RESPONSE_PREFIX}${c}${v}` : `${RESPONSE_PREFIX}${c}`;
}

export function conversationOfResponse(responseId: string): string {
  const hex = responseId.startsWith(RESPONSE_PREFIX) ? responseId.slice(RESPONSE_PREFIX.length) : "";
  const conv = hex.slice(24);
  if (hex.length !== 48 || !HEX24.test(hex.slice(0, 24)) || !HEX24.test(conv)) {
    throw appError("bad_request", {
      param: "previous_response_id",
      message: "previous_response_id is not a response id returned by this service.",
    });
  }
  return `${CONVERSATION_PREFIX}${conv}`;
}

const textOf = (c: string | { type: string; text?: string }[] | null | undefined): string =>
  typeof c === "string"
    ? c
    : Array.isArray(c)
      ? c.map((p) => (p.type === "input_text" || p.type === "output_text" || p.type === "text" ? (p.text ?? "") : "")).join("")
      : "";

/**
 * The question is `input` itself when it is a string, else the last user message; earlier user and assistant
 * messages are the history. System/developer messages and `instructions` are dropped: the persona governs.
 */
export function questionFromInput(input: ResponsesBody["input"]): { question: string; questionParam: string; history: ChatMessageIn[] } {
  if (typeof input === "string") return { question: checkQuestion(input, "input"), questionParam: "input", history: [] };
  const messages = input.map((m, at) => ({
    role: m.type === undefined || m.type === "message" ? String(m.role) : "",
    content: textOf(m.content),
    at,
  }));
  const turns = splitTurns(messages, (at) => `input[${at}].content`);
  if (!turns) throw appError("bad_request", { param: "input", message: "input must be a string or contain a user message." });
  return { ...turns, question: checkQuestion(turns.question, turns.questionParam) };
}

/** Which thread the turn belongs to: an explicit conversation wins over previous_response_id. */
export function threadOf(body: ResponsesBody): string | undefined {
  const conv = typeof body.conversation === "string" ? body.conversation : body.conversation?.id;
  if (body.conversation_id) return body.conversation_id;
  if (conv) return conv;
  return body.previous_response_id ? conversationOfResponse(body.previous_response_id) : undefined;
}

/** How this route appears in the public OpenAPI document (openapi/public-openapi.ts). */
export const responsesDoc = publicDoc({
  tag: "Responses",
  summary: "Answer a question in the OpenAI Responses API format (the default call of the Vercel AI SDK's OpenAI provider).",
  description:
    "Same gate, grounding, refusal and billing as chat completions; its own 60/min bucket. `input` is a string or a list of messages (the last user message is the question). " +
    "`instructions` and system/developer messages are ignored (the persona governs). `previous_response_id` continues the conversation that response belongs to. " +
    "Tools, `store`, `text` and other fields are accepted and ignored. With stream true the answer is SSE events named by their type: response.created, response.in_progress, " +
    "response.output_item.added, response.content_part.added, response.output_text.delta…, response.output_text.done, response.content_part.done, response.output_item.done, " +
    "then response.completed (or response.incomplete when max_output_tokens cut the answer). A failure after the stream started is an `error` event followed by response.failed.",
  body: { json: responsesBody },
  ok: [
    {
      schema: responseSchema,
      sse: responseSchema,
      description: "a response object; streamed, SSE events each carrying `type` and `sequence_number`",
    },
  ],
  errors: CHAT_ERRORS,
});
