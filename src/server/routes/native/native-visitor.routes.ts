import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";
import type { RequestStates } from "../../pipeline/request-state.ts";
import { toChatLogId, toRating } from "../widget/widget.schemas.ts";
import { faqDetailsResponse, nativeFeedbackBody, nativeFeedbackResponse, nativeVisitorDocs } from "./native-visitor.schemas.ts";

/**
 * Native visitor endpoints (documented with trailing slashes; both spellings answer). Registered only when
 * `config.nativeApi` is on; otherwise these paths are plain 404s.
 */
export function nativeVisitorRoutes(services: Services, state: RequestStates) {
  const app = new Elysia({ name: "native-visitor" });
  if (!services.config.nativeApi) return app;
  for (const path of ["/api/faq/details", "/api/faq/details/"]) {
    app.post(
      path,
      ({ request }) => {
        const { deployment } = state.gateOf(request);
        return {
          details: { name: deployment.name, questions: deployment.qaPairs.map((p) => ({ question: p.question, answer: p.answer })) },
        };
      },
      { response: { 200: faqDetailsResponse }, detail: nativeVisitorDocs.faq },
    );
  }
  for (const path of ["/api/feedback", "/api/feedback/"]) {
    app.post(
      path,
      async ({ request, body }) => {
        const { deployment } = state.gateOf(request);
        await services.feedback.rate(deployment.id, toChatLogId(body.chat_log_id), toRating(body.feedback));
        return { success: true as const };
      },
      { body: nativeFeedbackBody, response: { 200: nativeFeedbackResponse }, detail: nativeVisitorDocs.feedback },
    );
  }
  return app;
}
