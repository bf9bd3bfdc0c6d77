import type { EndpointName } from "../pipeline/endpoints.ts";
import { chatCompletionBody, chatStreamQuery } from "../routes/chat/chat.schemas.ts";
import { nativeChatBody, nativeStreamQuery } from "../routes/native/native-chat.schemas.ts";
import { faqDetailsResponse, nativeFeedbackBody, nativeFeedbackResponse } from "../routes/native/native-visitor.schemas.ts";
import { responsesBody } from "../routes/responses/responses.schemas.ts";
import { feedbackBody, feedbackResponse, handoffBody, handoffResponse, widgetConfigResponse } from "../routes/widget/widget.schemas.ts";
import {
  chatCompletionChunkSchema,
  chatCompletionSchema,
  documentPushJson,
  documentPushMultipart,
  documentSchema,
  jsonRpcMessageSchema,
  modelListSchema,
  nativeChatResponseSchema,
  responseSchema,
} from "./public-schemas.ts";

type Schema = object;

export interface Op {
  method: "get" | "post" | "delete";
  path: string;
  endpoint: EndpointName;
  tag: "Chat completions" | "Responses" | "Models" | "Documents" | "Widget" | "Native" | "MCP";
  summary: string;
  description?: string;
  body?: { json?: Schema; form?: Schema; multipart?: Schema };
  query?: Schema;
  pathParams?: string[];
  ok: { status?: number; schema?: Schema; sse?: Schema; description?: string }[];
  errors: number[];
  /** MCP answers refusals as JSON-RPC errors, not in the API's error shape */
  jsonRpcErrors?: true;
}

const MCP_GUIDE = "The Model Context Protocol server of the deployment behind the key (docs/mcp.md): no sessions are kept, so only POST is served.";

const CHAT_ERRORS = [400, 401, 402, 403, 404, 429, 503];

/** Every public operation. test/server/openapi.test.ts checks this list against the routes the server registers. */
export const operations: Op[] = [
  {
    method: "get",
    path: "/api/v1/models",
    endpoint: "v1.models",
    tag: "Models",
    summary: "The deployment behind the key, as the one model.",
    ok: [{ schema: modelListSchema }],
    errors: [401, 403, 429],
  },
  {
    method: "post",
    path: "/api/v1/chat/completions",
    endpoint: "v1.chat",
    tag: "Chat completions",
    summary: "Answer a question from the deployment's documents (OpenAI chat completions format).",
    description:
      "The last user message is the question; earlier user/assistant messages are history (style A), or send only the new message with a conversation_id (style B). " +
      "System messages are ignored: the deployment's persona governs. An ungrounded question is refused before any model call and costs nothing. " +
      "With stream true the answer is SSE `chat.completion.chunk` frames ending with `data: [DONE]`; a failure after the stream started is one frame with an `error` object.",
    body: { json: chatCompletionBody },
    ok: [{ schema: chatCompletionSchema, sse: chatCompletionChunkSchema }],
    errors: CHAT_ERRORS,
  },
  {
    method: "get",
    path: "/api/v1/chat/completions",
    endpoint: "v1.chat",
    tag: "Chat completions",
    summary: "The same answer as an SSE stream for a browser EventSource (key as the api_key query parameter).",
    query: chatStreamQuery,
    ok: [{ sse: chatCompletionChunkSchema }],
    errors: CHAT_ERRORS,
  },
  {
    method: "post",
    path: "/api/v1/chat/completions-with-sources",
    endpoint: "v1.chat-with-sources",
    tag: "Chat completions",
    summary: "A chat completion that always returns the retrieved chunks.",
    description: "400 sources_unsupported for a Private GPT deployment.",
    body: { json: chatCompletionBody },
    ok: [{ schema: chatCompletionSchema, sse: chatCompletionChunkSchema }],
    errors: CHAT_ERRORS,
  },
  {
    method: "post",
    path: "/api/v1/chat/completions-contextual",
    endpoint: "v1.chat-contextual",
    tag: "Chat completions",
    summary: "A chat completion with search_query, retrieval_fallback and, when include_chunks is true, the chunks.",
    description: "400 contextual_unsupported for a Private GPT deployment.",
    body: { json: chatCompletionBody },
    ok: [{ schema: chatCompletionSchema, sse: chatCompletionChunkSchema }],
    errors: CHAT_ERRORS,
  },
  {
    method: "post",
    path: "/api/v1/responses",
    endpoint: "v1.responses",
    tag: "Responses",
    summary: "Answer a question in the OpenAI Responses API format (the default call of the Vercel AI SDK's OpenAI provider).",
    description:
      "Same gate, grounding, refusal and billing as chat completions; its own 60/min bucket. `input` is a string or a list of messages (the last user message is the question). " +
      "`instructions` and system/developer messages are ignored (the persona governs). `previous_response_id` continues the conversation that response belongs to. " +
      "Tools, `store`, `text` and other fields are accepted and ignored. With stream true the answer is SSE events named by their type: response.created, response.in_progress, " +
      "response.output_item.added, response.content_part.added, response.output_text.delta…, response.output_text.done, response.content_part.done, response.output_item.done, " +
      "then response.completed (or response.incomplete when max_output_tokens cut the answer). A failure after the stream started is an `error` event followed by response.failed.",
    body: { json: responsesBody },
    ok: [
      {
        schema: responseSchema,
        sse: responseSchema,
        description: "a response object; streamed, SSE events each carrying `type` and `sequence_number`",
      },
    ],
    errors: CHAT_ERRORS,
  },
  {
    method: "post",
    path: "/api/v1/documents",
    endpoint: "v1.documents",
    tag: "Documents",
    summary: "Push a document into the deployment (JSON text, or a multipart file).",
    description:
      "The file type is sniffed from the bytes (PDF, DOCX, TXT, CSV). 200: stored and trained, answers use it. 202: stored, training queued or running (poll status_url). " +
      "201: stored, not trained (train false). Pushing the same name again replaces it unless replace is false.",
    body: { json: documentPushJson, multipart: documentPushMultipart },
    ok: [
      { status: 200, schema: documentSchema, description: "stored and trained" },
      { status: 202, schema: documentSchema, description: "stored; training pending" },
      { status: 201, schema: documentSchema, description: "stored; not trained (train false)" },
    ],
    errors: [400, 401, 403, 413, 415, 422, 429],
  },
  {
    method: "get",
    path: "/api/v1/documents",
    endpoint: "v1.documents",
    tag: "Documents",
    summary: "The deployment's documents.",
    ok: [{ description: "{object: list, data: [document]}" }],
    errors: [401, 403, 429],
  },
  {
    method: "get",
    path: "/api/v1/documents/{id}",
    endpoint: "v1.documents",
    tag: "Documents",
    summary: "One document's status.",
    pathParams: ["id"],
    ok: [{ schema: documentSchema }],
    errors: [401, 403, 404, 429],
  },
  {
    method: "delete",
    path: "/api/v1/documents/{id}",
    endpoint: "v1.documents",
    tag: "Documents",
    summary: "Remove a document and its chunks.",
    pathParams: ["id"],
    ok: [{ description: "{object: document, id, deleted: true}" }],
    errors: [401, 403, 404, 429],
  },
  {
    method: "post",
    path: "/api/v1/widget/config",
    endpoint: "v1.widget.config",
    tag: "Widget",
    summary: "Starter questions, Q&A pairs, name and handoff_enabled for the widget.",
    ok: [{ schema: widgetConfigResponse }],
    errors: [401, 403, 429],
  },
  {
    method: "post",
    path: "/api/v1/widget/feedback",
    endpoint: "v1.widget.feedback",
    tag: "Widget",
    summary: "Rate an answer: 1 helpful, 0 not helpful (puts it on the owner's corrections screen).",
    body: { json: feedbackBody, form: feedbackBody },
    ok: [{ schema: feedbackResponse }],
    errors: [400, 401, 403, 404, 429],
  },
  {
    method: "post",
    path: "/api/v1/widget/handoff",
    endpoint: "v1.widget.handoff",
    tag: "Widget",
    summary: "A visitor asks for a person to email them: records a lead and mails the owner.",
    description: "Offered only after a refusal and when handoff_enabled is true. Also limited to 10 a minute per client address.",
    body: { json: handoffBody, form: handoffBody },
    ok: [{ schema: handoffResponse }],
    errors: [400, 401, 403, 409, 429],
  },
  {
    method: "post",
    path: "/api/chat/",
    endpoint: "native.chat",
    tag: "Native",
    summary: "Legacy form chat. Failures answer HTTP 200 with an `error` string (except 429).",
    body: { form: nativeChatBody, json: nativeChatBody },
    ok: [{ schema: nativeChatResponseSchema }],
    errors: [429],
  },
  {
    method: "get",
    path: "/api/stream/",
    endpoint: "native.stream",
    tag: "Native",
    summary: "Native SSE stream: {token} events, then {done, conversation_id, tokens_count, chat_log_id}; {error} on failure.",
    query: nativeStreamQuery,
    ok: [{ description: "text/event-stream of data: {token} … {done: true, …}" }],
    errors: [400, 401, 402, 404, 429],
  },
  {
    method: "post",
    path: "/api/faq/details/",
    endpoint: "native.faq",
    tag: "Native",
    summary: "Deployment name and its pre-generated Q&A pairs.",
    ok: [{ schema: faqDetailsResponse }],
    errors: [401, 429],
  },
  {
    method: "post",
    path: "/api/feedback/",
    endpoint: "native.feedback",
    tag: "Native",
    summary: "Rate an answer (form fields chat_log_id, feedback 1 or 0).",
    body: { form: nativeFeedbackBody, json: nativeFeedbackBody },
    ok: [{ schema: nativeFeedbackResponse }],
    errors: [400, 401, 429],
  },
  {
    method: "post",
    path: "/api/v1/mcp",
    endpoint: "mcp",
    tag: "MCP",
    summary: "The deployment's MCP server (Streamable HTTP): search, fetch and ask tools with citations.",
    description:
      "A JSON-RPC message of the Model Context Protocol (revision 2025-11-25): initialize, tools/list, tools/call (search, fetch, ask), ping. " +
      "Send `Accept: application/json, text/event-stream`; replies stream as SSE. A refusal by the gate is a JSON-RPC error whose code is the HTTP status. See docs/mcp.md.",
    body: { json: jsonRpcMessageSchema },
    ok: [
      { sse: jsonRpcMessageSchema, description: "the JSON-RPC response, as an SSE stream" },
      { status: 202, description: "a notification or response accepted" },
    ],
    errors: [400, 401, 403, 406, 415, 429],
    jsonRpcErrors: true,
  },
  {
    method: "get",
    path: "/api/v1/mcp",
    endpoint: "mcp",
    tag: "MCP",
    summary: "Not served: no server-to-client stream without sessions (405).",
    description: MCP_GUIDE,
    ok: [],
    errors: [405],
    jsonRpcErrors: true,
  },
  {
    method: "delete",
    path: "/api/v1/mcp",
    endpoint: "mcp",
    tag: "MCP",
    summary: "Not served: there is no session to end (405).",
    description: MCP_GUIDE,
    ok: [],
    errors: [405],
    jsonRpcErrors: true,
  },
];
