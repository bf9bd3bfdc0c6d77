import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";
import type { RequestStates } from "../../pipeline/request-state.ts";
import { sseResponse } from "../../sse.ts";
import { abortOnDisconnect } from "../chat/chat.routes.ts";
import { collectAnswer, primeEvents } from "../chat/chat-events.ts";
import { questionFromInput, responsesBody, threadOf, responsesDoc } from "./responses.schemas.ts";
import { responsesEventName, responsesFrames } from "./responses-frames.ts";
import { type ResponseMeta, responseObject } from "./responses-views.ts";

const now = () => Math.floor(Date.now() / 1000);

/**
 * POST /api/v1/responses: the OpenAI Responses API over the same gate, rate limit (its own 60/min bucket, like
 * each chat endpoint), grounding, refusal and billing as chat completions. `instructions` and system messages
 * are ignored (the persona governs); `previous_response_id` continues that response's conversation.
 */
export function responsesRoutes(services: Services, state: RequestStates) {
  return new Elysia({ name: "responses" }).post(
    "/api/v1/responses",
    async ({ request, body }) => {
      const gate = state.gateOf(request);
      const { question, questionParam, history } = questionFromInput(body.input);
      const abort = abortOnDisconnect(request);
      const events = services.chat.answer(
        {
          deployment: gate.deployment,
          account: gate.account,
          endpoint: gate.endpoint,
          question,
          questionParam,
          history,
          conversationId: threadOf(body),
          user: body.user,
          temperature: body.temperature ?? undefined,
          maxTokens: body.max_output_tokens ?? undefined,
          visitorEmail: body.visitor_email,
        },
        abort.signal,
      );
      const meta: ResponseMeta = {
        model: gate.deployment.id,
        created: now(),
        temperature: body.temperature ?? gate.deployment.temperature,
        maxOutputTokens: body.max_output_tokens ?? null,
        previousResponseId: body.previous_response_id ?? null,
        includeChunks: body.include_chunks === true,
      };
      if (body.stream !== true) {
        const r = await collectAnswer(events);
        const status = r.done.finishReason === "length" ? "incomplete" : "completed";
        return responseObject(r.sources, meta, { status, text: r.text, done: r.done });
      }
      const { sources, rest } = await primeEvents(events);
      return sseResponse(responsesFrames(sources, rest, meta), { abort, eventOf: responsesEventName });
    },
    { body: responsesBody, detail: responsesDoc },
  );
}
