import { t } from "elysia";
import { chatLogIdField, ratingField } from "../widget/widget.schemas.ts";
import { publicDoc } from "../../openapi/public-doc.ts";

/** The native family's form posts; `api_key` may ride along in the form and is read by the gate. */
export const nativeFeedbackBody = t.Object({ chat_log_id: chatLogIdField, feedback: ratingField });
export const nativeFeedbackResponse = t.Object({ success: t.Literal(true) });

export const faqDetailsResponse = t.Object({
  details: t.Object({ name: t.String(), questions: t.Array(t.Object({ question: t.String(), answer: t.String() })) }),
});

/** How these routes appear in the public OpenAPI document (openapi/public-openapi.ts). */
export const nativeVisitorDocs = {
  faq: publicDoc({
    tag: "Native",
    summary: "Deployment name and its pre-generated Q&A pairs.",
    ok: [{ schema: faqDetailsResponse }],
    errors: [401, 429],
  }),
  feedback: publicDoc({
    tag: "Native",
    summary: "Rate an answer (form fields chat_log_id, feedback 1 or 0).",
    body: { form: nativeFeedbackBody, json: nativeFeedbackBody },
    ok: [{ schema: nativeFeedbackResponse }],
    errors: [400, 401, 429],
  }),
};
