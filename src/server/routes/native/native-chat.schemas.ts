import { t } from "elysia";
import { CHAT_BOUNDS } from "../../../chat/chat-bounds.ts";
import { publicDoc } from "../../openapi/public-doc.ts";
import { nativeChatResponseSchema } from "../../openapi/public-schemas.ts";

const threadKey = t.String({ maxLength: CHAT_BOUNDS.conversationIdChars });

/** ChatRequest's fields: the chat's form fields (JSON is accepted too), and its stream's query string. */
const chatRequest = {
  msg: t.String({ minLength: 1 }),
  api_key: t.Optional(t.String()),
  conversation_id: t.Optional(threadKey),
  visitor_email: t.Optional(t.String({ maxLength: 254 })),
  lang: t.Optional(t.String({ maxLength: 35 })),
};

export const nativeChatBody = t.Object(chatRequest);
export const nativeStreamQuery = t.Object(chatRequest);

/** How these routes appear in the public OpenAPI document (openapi/public-openapi.ts). */
export const nativeChatDocs = {
  chat: publicDoc({
    tag: "Native",
    summary: "Legacy form chat. Failures answer HTTP 200 with an `error` string (except 429).",
    body: { form: nativeChatBody, json: nativeChatBody },
    ok: [{ schema: nativeChatResponseSchema }],
    errors: [429],
  }),
  stream: publicDoc({
    tag: "Native",
    summary: "Native SSE stream: {token} events, then {done, conversation_id, tokens_count, chat_log_id}; {error} on failure.",
    query: nativeStreamQuery,
    ok: [{ description: "text/event-stream of data: {token} … {done: true, …}" }],
    errors: [400, 401, 402, 404, 429],
  }),
};
