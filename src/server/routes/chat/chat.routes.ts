import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";
import type { ChatRequest } from "../../../chat/chat.types.ts";
import { appError } from "../../../errors/index.ts";
import type { GateResult } from "../../pipeline/gate.ts";
import type { RequestStates } from "../../pipeline/request-state.ts";
import { sseResponse } from "../../sse.ts";
import { type ChatCompletionBody, chatCompletionBody, chatDocs, chatStreamQuery, questionAndHistory } from "./chat.schemas.ts";
import { collectAnswer, primeEvents } from "./chat-events.ts";
import { v1Frames } from "./chat-frames.ts";
import { type CompletionFlavour, completionBody, flavourFields } from "./chat-views.ts";

const now = () => Math.floor(Date.now() / 1000);

/** An AbortController that also fires when the visitor's connection goes away. */
export function abortOnDisconnect(request: Request): AbortController {
  const abort = new AbortController();
  if (request.signal.aborted) abort.abort();
  else request.signal.addEventListener("abort", () => abort.abort(), { once: true });
  return abort;
}

/**
 * The chat-completions family. The key alone decides the deployment, and every response and stream chunk names
 * it as `model` (the id /api/v1/models lists), whatever the request's `model` said. The
 * contextual behaviour (sources, search_query, conversation_id, chat_log_id) is the default here.
 */
export function chatRoutes(services: Services, state: RequestStates) {
  async function respond(input: {
    request: Request;
    gate: GateResult;
    chat: Omit<ChatRequest, "deployment" | "account" | "endpoint">;
    model: string;
    stream: boolean;
    includeUsage: boolean;
    flavour: CompletionFlavour;
    includeChunks: boolean;
  }) {
    const { gate, flavour, includeChunks } = input;
    const abort = abortOnDisconnect(input.request);
    const events = services.chat.answer(
      { ...input.chat, deployment: gate.deployment, account: gate.account, endpoint: gate.endpoint },
      abort.signal,
    );
    const created = now();
    if (!input.stream) {
      const r = await collectAnswer(events);
      return completionBody({ model: input.model, created, ...r, flavour, includeChunks });
    }
    const { sources, rest } = await primeEvents(events);
    // the widget's citation links (when the owner lets visitors open them): the passages the answer cited
    const citations = await services.citations.widgetLinks(
      gate.deployment.id,
      sources.hits.filter((h) => sources.sources.includes(h.source)),
    );
    const frames = v1Frames(sources, rest, {
      model: input.model,
      created,
      includeUsage: input.includeUsage,
      extras: (s) => ({ ...flavourFields(flavour, s, includeChunks), ...(citations.length ? { citations } : {}) }),
    });
    return sseResponse(frames, { abort });
  }

  const post =
    (flavour: CompletionFlavour) =>
    async ({ request, body }: { request: Request; body: ChatCompletionBody }) => {
      const gate = state.gateOf(request);
      if (gate.deployment.kind === "private_gpt" && flavour !== "default")
        throw appError(flavour === "with-sources" ? "sources_unsupported" : "contextual_unsupported");
      const { question, questionParam, history } = questionAndHistory(body);
      return respond({
        request,
        gate,
        chat: {
          question,
          questionParam,
          history,
          conversationId: body.conversation_id,
          user: body.user,
          temperature: body.temperature ?? undefined,
          maxTokens: body.max_tokens ?? body.max_completion_tokens ?? undefined,
          visitorEmail: body.visitor_email,
        },
        model: gate.deployment.id,
        stream: body.stream === true,
        includeUsage: body.stream_options?.include_usage === true,
        flavour,
        // With-sources always returns chunks; the contextual endpoint only when asked (they can be large).
        includeChunks: flavour === "contextual" && body.include_chunks === true,
      });
    };

  return new Elysia({ name: "chat" })
    .post("/api/v1/chat/completions", post("default"), { body: chatCompletionBody, detail: chatDocs.completions })
    .post("/api/v1/chat/completions-with-sources", post("with-sources"), { body: chatCompletionBody, detail: chatDocs.withSources })
    .post("/api/v1/chat/completions-contextual", post("contextual"), { body: chatCompletionBody, detail: chatDocs.contextual })
    .get(
      "/api/v1/chat/completions",
      ({ request, query }) => {
        const gate = state.gateOf(request);
        return respond({
          request,
          gate,
          chat: {
            question: query.message,
            questionParam: "message",
            history: [],
            conversationId: query.conversation_id,
            visitorEmail: query.visitor_email,
          },
          model: gate.deployment.id,
          // The browser form exists for EventSource; stream=false still gets the JSON completion.
          stream: !/^(false|0|no)$/i.test(query.stream ?? "true"),
          includeUsage: false,
          flavour: "default",
          includeChunks: false,
        });
      },
      { query: chatStreamQuery, detail: chatDocs.stream },
    );
}
