import { t } from "elysia";

/**
 * Response shapes of the public API that the routes build in code rather than declare as Elysia schemas; the
 * OpenAPI document (public-openapi.ts) is assembled from these and the routes' own request schemas.
 */
const usage = t.Object({ prompt_tokens: t.Integer(), completion_tokens: t.Integer(), total_tokens: t.Integer() });
const chunk = t.Object({
  text: t.String({ description: "verbatim passage" }),
  source: t.String(),
  score: t.Number({ description: "relevance, 0..1" }),
});

/** The additive, non-standard fields; stock OpenAI clients ignore them. */
const additive = {
  conversation_id: t.String({ description: "thread id (conv-…); send it back to continue the conversation" }),
  sources: t.Array(t.String(), { description: "distinct document names used, extensions stripped" }),
  refused: t.Boolean({ description: "true when the question could not be grounded in the documents (free, no model call)" }),
  confidence: t.Union([t.Literal("high"), t.Literal("low"), t.Null()], {
    description:
      "high: a passage clearly answers; low: the answer is only the closest passage found (an extractive answer says so); null: a refusal or an owner's correction",
  }),
};

export const errorSchema = t.Object({
  error: t.Object({
    message: t.String({ description: "safe to show a visitor; wording not stable" }),
    type: t.String(),
    code: t.String({ description: "stable; see docs/errors.md" }),
    param: t.Optional(t.String({ description: "the field at fault, when one is" })),
  }),
});

export const modelListSchema = t.Object({
  object: t.Literal("list"),
  data: t.Array(
    t.Object({
      id: t.String({ description: "the deployment id" }),
      object: t.Literal("model"),
      created: t.Integer(),
      owned_by: t.String({ description: 'always "docchat" (never derived from the owner\'s account)' }),
    }),
  ),
});

export const chatCompletionSchema = t.Object({
  id: t.String({ description: "chatcmpl-…" }),
  object: t.Literal("chat.completion"),
  created: t.Integer(),
  model: t.String(),
  choices: t.Array(
    t.Object({
      index: t.Integer(),
      message: t.Object({ role: t.Literal("assistant"), content: t.String() }),
      finish_reason: t.Union([t.Literal("stop"), t.Literal("length")]),
    }),
  ),
  usage,
  chat_log_id: t.Integer({ description: "rate the answer with it (widget/feedback)" }),
  ...additive,
  search_query: t.Optional(t.String({ description: "the standalone question actually searched" })),
  retrieval_fallback: t.Optional(t.Boolean({ description: "contextual endpoint only" })),
  chunks: t.Optional(t.Array(chunk, { description: "with-sources always; contextual when include_chunks is true" })),
});

export const chatCompletionChunkSchema = t.Object({
  id: t.String(),
  object: t.Literal("chat.completion.chunk"),
  created: t.Integer(),
  model: t.String(),
  conversation_id: t.String(),
  choices: t.Array(
    t.Object({
      index: t.Integer(),
      delta: t.Object({ role: t.Optional(t.String()), content: t.Optional(t.String()) }),
      finish_reason: t.Union([t.String(), t.Null()]),
    }),
  ),
  chat_log_id: t.Optional(t.Integer({ description: "on the chunk carrying finish_reason" })),
});

export const responseSchema = t.Object({
  id: t.String({ description: "resp_…; pass it as previous_response_id to continue the conversation" }),
  object: t.Literal("response"),
  created_at: t.Integer(),
  status: t.Union([t.Literal("completed"), t.Literal("incomplete"), t.Literal("failed"), t.Literal("in_progress")]),
  model: t.String(),
  output: t.Array(
    t.Object({
      id: t.String(),
      type: t.Literal("message"),
      role: t.Literal("assistant"),
      status: t.String(),
      content: t.Array(t.Object({ type: t.Literal("output_text"), text: t.String(), annotations: t.Array(t.Unknown()) })),
    }),
  ),
  usage: t.Union([
    t.Object({
      input_tokens: t.Integer(),
      output_tokens: t.Integer(),
      total_tokens: t.Integer(),
      input_tokens_details: t.Object({}),
      output_tokens_details: t.Object({}),
    }),
    t.Null(),
  ]),
  temperature: t.Number(),
  max_output_tokens: t.Union([t.Integer(), t.Null()]),
  previous_response_id: t.Union([t.String(), t.Null()]),
  error: t.Union([t.Object({ code: t.String(), message: t.String() }), t.Null()]),
  incomplete_details: t.Union([t.Object({ reason: t.String() }), t.Null()]),
  chat_log_id: t.Optional(t.Integer()),
  ...additive,
  search_query: t.String(),
  chunks: t.Optional(t.Array(chunk, { description: "when include_chunks is true" })),
});

export const documentSchema = t.Object({
  object: t.Literal("document"),
  id: t.String(),
  name: t.String(),
  kind: t.String({ description: "pdf, docx, txt or csv (sniffed from the bytes)" }),
  status: t.Union([t.Literal("stored"), t.Literal("queued"), t.Literal("processing"), t.Literal("completed"), t.Literal("failed")]),
  chunk_count: t.Integer(),
  pages: t.Union([t.Integer(), t.Null()]),
  size: t.Integer({ description: "bytes" }),
  origin: t.Union([t.Literal("owner"), t.Literal("key")], {
    description: "who added it: the owner (console, CLI) or a push with the key; the key may replace or remove only key pushes",
  }),
  error: t.Union([t.Object({ code: t.String(), message: t.String() }), t.Null()]),
  status_url: t.String({ description: "poll this while status is queued or processing" }),
  created_at: t.Integer(),
  unchanged: t.Optional(
    t.Boolean({ description: "push only: the same content was already pushed with the key under this name (nothing added)" }),
  ),
  training_status: t.Optional(t.String({ description: "push only: the deployment's training status" })),
});

const pushFlags = {
  train: t.Optional(t.Boolean({ default: true, description: "false stores without training (201)" })),
  replace: t.Optional(
    t.Boolean({
      default: true,
      description:
        "true replaces the document of that name previously pushed with the key instead of adding (never one the owner uploaded)",
    }),
  ),
};
export const documentPushJson = t.Object({ content: t.String({ description: "the document's text" }), name: t.String(), ...pushFlags });
export const documentPushMultipart = t.Object({
  file: t.String({
    format: "binary",
    description: "PDF, DOCX, TXT or CSV; the type is sniffed from the bytes (alias field name: document)",
  }),
  name: t.Optional(t.String({ description: "defaults to the file name" })),
  ...pushFlags,
});

export const nativeChatResponseSchema = t.Object({
  details: t.Object({ name: t.String() }),
  response: t.Optional(t.String()),
  chat_log_id: t.Optional(t.Integer()),
  conversation_id: t.Optional(t.String()),
  error: t.Optional(t.String({ description: "present instead of response on failure (HTTP 200 except 429)" })),
  code: t.Optional(t.String()),
});

/** A JSON-RPC 2.0 message as MCP sends it (docs/mcp.md): the body of POST /api/v1/mcp. */
export const jsonRpcMessageSchema = t.Object(
  {
    jsonrpc: t.Literal("2.0"),
    id: t.Optional(t.Union([t.String(), t.Number()])),
    method: t.Optional(t.String({ description: "initialize, tools/list, tools/call, ping, notifications/…" })),
    params: t.Optional(t.Record(t.String(), t.Unknown())),
    result: t.Optional(t.Unknown()),
  },
  { additionalProperties: true },
);

/** A refused MCP request: the HTTP status as the JSON-RPC error code, the stable catalogue code in data.code. */
export const jsonRpcErrorSchema = t.Object({
  jsonrpc: t.Literal("2.0"),
  id: t.Union([t.String(), t.Number(), t.Null()]),
  error: t.Object({
    code: t.Integer({ description: "the HTTP status of the refusal (401, 403, 429, …)" }),
    message: t.String(),
    data: t.Object({
      code: t.String({ description: "stable: bad_key, not_published, ip_restricted, rate_limited, … (docs/errors.md)" }),
      type: t.String(),
      status: t.Integer(),
      param: t.Optional(t.String()),
      retry_after: t.Optional(t.Integer()),
    }),
  }),
});
