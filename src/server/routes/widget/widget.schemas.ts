import { t } from "elysia";
import { VISITOR_LIMITS } from "../../../visitor/validate.ts";
import { publicDoc } from "../../openapi/public-doc.ts";

/**
 * Request and response shapes of /api/v1/widget/*. Form posts deliver every field as a string, so the
 * numeric fields also accept their exact canonical string form — "1" but never "1.0", " 1" or "01".
 */
// Elysia's t.Integer also takes any integer-looking string ("01", "1e3"); a plain number with multipleOf 1 does not.
export const chatLogIdField = t.Union(
  [t.Number({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, multipleOf: 1 }), t.String({ pattern: "^[1-9][0-9]{0,14}$" })],
  {
    error: "chat_log_id must be a positive integer",
  },
);
export const ratingField = t.Union([t.Literal(0), t.Literal(1), t.Literal("0"), t.Literal("1")], { error: "feedback must be 1 or 0" });

export const toChatLogId = (v: number | string): number => (typeof v === "number" ? v : Number(v));
export const toRating = (v: number | string): 0 | 1 => (v === 1 || v === "1" ? 1 : 0);

export const feedbackBody = t.Object({ chat_log_id: chatLogIdField, feedback: ratingField });
export const feedbackResponse = t.Object({
  success: t.Literal(true),
  chat_log_id: t.Number({ multipleOf: 1 }),
  feedback: t.Union([t.Literal(0), t.Literal(1)]),
});

/** Lengths are capped here; line breaks in email and name are refused by the handoff service itself. */
export const handoffBody = t.Object({
  email: t.String({ minLength: 3, maxLength: VISITOR_LIMITS.email }),
  name: t.Optional(t.String({ maxLength: VISITOR_LIMITS.name })),
  message: t.Optional(t.String({ maxLength: VISITOR_LIMITS.message })),
  conversation_id: t.Optional(t.String({ maxLength: VISITOR_LIMITS.conversationId })),
  chat_log_id: t.Optional(chatLogIdField),
});
export const handoffResponse = t.Object({ success: t.Literal(true), lead_id: t.Number({ multipleOf: 1 }) });

const qaPair = t.Object({ question: t.String(), answer: t.String() });

export const widgetConfigResponse = t.Object({
  id: t.String(),
  name: t.String(),
  starter_questions: t.Array(t.String()),
  qa_pairs: t.Array(qaPair),
  handoff_enabled: t.Boolean(),
  handoff_mail: t.Boolean({
    description: "the owner is mailed about a handoff (false: mail is off, the request is only listed in the console)",
  }),
  feedback_enabled: t.Boolean(),
});

/** How these routes appear in the public OpenAPI document (openapi/public-openapi.ts). */
export const widgetDocs = {
  config: publicDoc({
    tag: "Widget",
    summary: "Starter questions, Q&A pairs, name and handoff_enabled for the widget.",
    ok: [{ schema: widgetConfigResponse }],
    errors: [401, 403, 429],
  }),
  feedback: publicDoc({
    tag: "Widget",
    summary: "Rate an answer: 1 helpful, 0 not helpful (puts it on the owner's corrections screen).",
    body: { json: feedbackBody, form: feedbackBody },
    ok: [{ schema: feedbackResponse }],
    errors: [400, 401, 403, 404, 429],
  }),
  handoff: publicDoc({
    tag: "Widget",
    summary: "A visitor asks for a person to email them: records a lead and mails the owner.",
    description: "Offered only after a refusal and when handoff_enabled is true. Also limited to 10 a minute per client address.",
    body: { json: handoffBody, form: handoffBody },
    ok: [{ schema: handoffResponse }],
    errors: [400, 401, 403, 409, 429],
  }),
};
