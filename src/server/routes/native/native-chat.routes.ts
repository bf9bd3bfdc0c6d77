import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";
import { type AppError, isAppError, localizedMessage } from "../../../errors/index.ts";
import type { RequestStates } from "../../pipeline/request-state.ts";
import { type SseFrame, sseResponse } from "../../sse.ts";
import { abortOnDisconnect } from "../chat/chat.routes.ts";
import { collectAnswer, primeEvents } from "../chat/chat-events.ts";
import { nativeFrames } from "../chat/chat-frames.ts";
import { nativeChatBody, nativeStreamQuery, nativeChatDocs } from "./native-chat.schemas.ts";

/**
 * The native family's chat endpoints, thin edges over the same chat service. Failures of POST /api/chat/
 * keep the legacy shape (HTTP 200 with an `error` string; see error-response.ts); the stream answers
 * 401/402/404/429 before it starts and an `{error}` event after.
 */
export function nativeChatRoutes(services: Services, state: RequestStates) {
  const chat = (
    request: Request,
    f: { msg: string; conversation_id?: string; visitor_email?: string; lang?: string },
    abort: AbortController,
  ) => {
    const gate = state.gateOf(request);
    const events = services.chat.answer(
      {
        deployment: gate.deployment,
        account: gate.account,
        endpoint: gate.endpoint,
        question: f.msg,
        questionParam: "msg",
        history: [],
        conversationId: f.conversation_id,
        visitorEmail: f.visitor_email || undefined,
        lang: f.lang,
      },
      abort.signal,
    );
    return { gate, events };
  };

  const app = new Elysia({ name: "native-chat" });
  if (!services.config.nativeApi) return app;
  for (const path of ["/api/chat", "/api/chat/"]) {
    app.post(
      path,
      async ({ request, body }) => {
        const { gate, events } = chat(request, body, abortOnDisconnect(request));
        const r = await collectAnswer(events);
        return {
          details: { name: gate.deployment.name },
          response: r.text,
          chat_log_id: r.done.chatLogId,
          conversation_id: r.sources.conversationId,
        };
      },
      { body: nativeChatBody, detail: nativeChatDocs.chat },
    );
  }
  for (const path of ["/api/stream", "/api/stream/"]) {
    app.get(
      path,
      async ({ request, query }) => {
        const abort = abortOnDisconnect(request);
        const { events } = chat(request, query, abort);
        try {
          const { sources, rest } = await primeEvents(events);
          return sseResponse(nativeFrames(sources, rest, query.lang), { abort });
        } catch (e) {
          // 401/402/404/429 and malformed requests are real HTTP answers; a model that cannot answer is an {error} event.
          if (isAppError(e) && e.status >= 500) return sseResponse(errorEvent(e, query.lang), { abort });
          throw e;
        }
      },
      { query: nativeStreamQuery, detail: nativeChatDocs.stream },
    );
  }
  return app;
}

async function* errorEvent(e: AppError, lang?: string): AsyncGenerator<SseFrame> {
  yield { error: localizedMessage(e, lang), code: e.code };
}
