import { t } from "elysia";
import { chatLogIdField, ratingField } from "../widget/widget.schemas.ts";

/** The native family's form posts; `api_key` may ride along in the form and is read by the gate. */
export const nativeFeedbackBody = t.Object({ chat_log_id: chatLogIdField, feedback: ratingField });
export const nativeFeedbackResponse = t.Object({ success: t.Literal(true) });

export const faqDetailsResponse = t.Object({
  details: t.Object({ name: t.String(), questions: t.Array(t.Object({ question: t.String(), answer: t.String() })) }),
});
