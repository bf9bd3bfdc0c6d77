import { t } from "elysia";
import { CHAT_BOUNDS } from "../../../chat/chat-bounds.ts";

const threadKey = t.String({ maxLength: CHAT_BOUNDS.conversationIdChars });

/** ChatRequest (form fields; JSON is accepted too). */
export const nativeChatBody = t.Object({
  msg: t.String({ minLength: 1 }),
  api_key: t.Optional(t.String()),
  conversation_id: t.Optional(threadKey),
  visitor_email: t.Optional(t.String({ maxLength: 254 })),
  lang: t.Optional(t.String({ maxLength: 35 })),
});

export const nativeStreamQuery = t.Object({
  msg: t.String({ minLength: 1 }),
  api_key: t.Optional(t.String()),
  conversation_id: t.Optional(threadKey),
  visitor_email: t.Optional(t.String({ maxLength: 254 })),
  lang: t.Optional(t.String({ maxLength: 35 })),
});
