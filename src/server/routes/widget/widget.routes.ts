import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";
import { appError } from "../../../errors/index.ts";
import type { RequestStates } from "../../pipeline/request-state.ts";
import {
  feedbackBody,
  feedbackResponse,
  handoffBody,
  handoffResponse,
  toChatLogId,
  toRating,
  widgetConfigResponse,
  widgetDocs,
} from "./widget.schemas.ts";

/** Handoff sends mail, so besides the per-key limit of the gate each client address gets 10 a minute. */
export const HANDOFF_PER_IP_LIMIT = 10;

export function widgetRoutes(services: Services, state: RequestStates) {
  return new Elysia({ name: "widget" })
    .post(
      "/api/v1/widget/config",
      ({ request }) => {
        const { deployment } = state.gateOf(request);
        return {
          id: deployment.id,
          name: deployment.name,
          starter_questions: deployment.starterQuestions,
          qa_pairs: deployment.qaPairs.map((p) => ({ question: p.question, answer: p.answer })),
          handoff_enabled: deployment.handoffEnabled,
          // with mail off the owner is not mailed, so the widget does not promise the visitor an email
          handoff_mail: services.mail.enabled,
          feedback_enabled: true,
        };
      },
      { response: { 200: widgetConfigResponse }, detail: widgetDocs.config },
    )
    .post(
      "/api/v1/widget/feedback",
      async ({ request, body }) => {
        const { deployment } = state.gateOf(request);
        const chatLogId = toChatLogId(body.chat_log_id);
        const feedback = toRating(body.feedback);
        await services.feedback.rate(deployment.id, chatLogId, feedback);
        return { success: true as const, chat_log_id: chatLogId, feedback };
      },
      { body: feedbackBody, response: { 200: feedbackResponse }, detail: widgetDocs.feedback },
    )
    .post(
      "/api/v1/widget/handoff",
      async ({ request, body, set }) => {
        const { deployment, account } = state.gateOf(request);
        const ip = await services.limiter.hit(`v1.widget.handoff|client-ip:${state.clientIp(request)}`, HANDOFF_PER_IP_LIMIT);
        const keyRemaining = Number(set.headers["x-ratelimit-remaining"] ?? ip.remaining);
        set.headers["x-ratelimit-remaining"] = String(Math.min(keyRemaining, ip.remaining));
        if (!ip.allowed) throw appError("rate_limited", { headers: { "retry-after": String(ip.retryAfterSeconds) } });
        const { lead } = await services.leads.handoff({
          deployment,
          ownerEmail: account.email,
          email: body.email,
          name: body.name,
          message: body.message,
          conversationId: body.conversation_id,
          chatLogId: body.chat_log_id === undefined ? undefined : toChatLogId(body.chat_log_id),
        });
        return { success: true as const, lead_id: lead.id };
      },
      { body: handoffBody, response: { 200: handoffResponse }, detail: widgetDocs.handoff },
    );
}
