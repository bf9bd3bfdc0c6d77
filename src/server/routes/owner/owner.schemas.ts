import { t } from "elysia";

/** Request and response shapes of the owner API (/owner/api/*); the OpenAPI document is generated from these. */
const nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()]);

export const errorResponse = t.Object({
  error: t.Object({ message: t.String(), type: t.String(), code: t.String(), param: t.Optional(t.String()) }),
});
export const okResponse = t.Object({ success: t.Literal(true) });

export const loginBody = t.Object({ email: t.String({ maxLength: 320 }), password: t.String({ maxLength: 1024 }) });
export const sessionResponse = t.Object({
  account: t.Object({ id: t.Number(), email: t.String(), tokens: t.Number() }),
  expires_at: t.Number({ description: "absolute end of the session, ms since the epoch" }),
  idle_timeout_seconds: t.Number(),
});

const kind = t.Union([t.Literal("docs"), t.Literal("private_gpt")]);
const qaPair = t.Object({ question: t.String(), answer: t.String() });

export const deploymentSchema = t.Object({
  id: t.String(),
  name: t.String(),
  kind,
  published: t.Boolean(),
  description: t.String({ description: "what the documents cover; agents read it in the MCP server's instructions" }),
  persona: t.String(),
  temperature: t.Number(),
  starter_questions: t.Array(t.String()),
  qa_pairs: t.Array(qaPair),
  handoff_enabled: t.Boolean(),
  ip_allow: t.Array(t.String()),
  key_manages_documents: t.Boolean({
    description: "the deployment key may list and remove documents (off by default: the key is public in the widget)",
  }),
  push_enabled: t.Boolean({ description: "the deployment key may push documents to POST /api/v1/documents" }),
  push_ip_allow: t.Array(t.String(), { description: "addresses (CIDR) allowed to push; empty: any address the IP allow-list lets in" }),
  push_max_documents: t.Number({
    description: "documents the key may keep pushed in this deployment (its own share, not the account's quota)",
  }),
  push_max_bytes: t.Number({ description: "bytes the key may keep pushed in this deployment" }),
  push_share_custom: t.Boolean({ description: "false: the share is the service default (DOCCHAT_PUSH_MAX_*)" }),
  refusal_threshold: nullable(
    t.Number({ description: "the deployment's own refusal threshold 0..1; null uses the default for the retrieval mode" }),
  ),
  languages: t.Array(t.String(), {
    description: "languages pinned by the owner (ISO 639-1); empty: detected from the documents",
  }),
  detected_languages: t.Array(t.Object({ lang: t.String(), documents: t.Number(), chunks: t.Number() }), {
    description: "languages detected in the trained documents, the most chunks first",
  }),
  refusal_text: nullable(t.String({ description: "the owner's own refusal; null: docchat's, in the visitor's language" })),
  retrieval: t.Object({
    mode: t.String({ description: "keyword, embeddings or reranker: what the refusal threshold is compared with" }),
    judged_by: t.String(),
    default_threshold: t.Number(),
    effective_threshold: t.Number(),
  }),
  answers_by_model: t.Boolean({
    description: "a language model writes answers (persona and temperature apply); false: extractive answers",
  }),
  mail_enabled: t.Boolean({ description: "owner mail (handoff notifications) is configured" }),
  training_status: t.String({ description: "none, queued, processing, completed or failed" }),
  documents: t.Record(t.String(), t.Number()),
  trained_at: nullable(t.Number()),
  key_prefix: nullable(t.String()),
  key_disabled: nullable(t.Boolean()),
  created_at: t.Number(),
  updated_at: t.Number(),
});

export const deploymentListResponse = t.Object({ data: t.Array(deploymentSchema) });
export const deploymentParams = t.Object({ id: t.String({ maxLength: 100 }) });
export const createDeploymentBody = t.Object({ name: t.String({ minLength: 1, maxLength: 200 }), kind: t.Optional(kind) });
export const keyShownOnce = {
  api_key: t.String({ description: "shown in this response only; store it now" }),
  key_prefix: t.String(),
  warning: t.String(),
};
export const createDeploymentResponse = t.Object({ deployment: deploymentSchema, ...keyShownOnce });
export const patchDeploymentBody = t.Object({
  name: t.Optional(t.String({ maxLength: 200 })),
  published: t.Optional(t.Boolean()),
  description: t.Optional(t.String({ maxLength: 2000 })),
  persona: t.Optional(t.String({ maxLength: 4000 })),
  temperature: t.Optional(t.Number()),
  starter_questions: t.Optional(t.Array(t.String({ maxLength: 500 }), { maxItems: 50 })),
  qa_pairs: t.Optional(t.Array(qaPair, { maxItems: 50 })),
  handoff_enabled: t.Optional(t.Boolean()),
  ip_allow: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 200 })),
  key_manages_documents: t.Optional(t.Boolean()),
  push_enabled: t.Optional(t.Boolean()),
  push_ip_allow: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 200 })),
  push_max_documents: t.Optional(nullable(t.Integer({ minimum: 0, maximum: 10_000_000, description: "null: the service default" }))),
  push_max_bytes: t.Optional(nullable(t.Integer({ minimum: 0, maximum: 2 ** 50, description: "null: the service default" }))),
  refusal_threshold: t.Optional(nullable(t.Number({ minimum: 0, maximum: 1 }))),
  languages: t.Optional(t.Array(t.String({ maxLength: 10 }), { maxItems: 17 })),
  refusal_text: t.Optional(nullable(t.String({ maxLength: 1000 }))),
});
export const keyResponse = t.Object(keyShownOnce);
export const keyPatchBody = t.Object({ disabled: t.Boolean() });
export const keyStateResponse = t.Object({ key_prefix: nullable(t.String()), key_disabled: nullable(t.Boolean()) });

export const documentSchema = t.Object({
  id: t.String(),
  name: t.String(),
  kind: t.String(),
  status: t.String({ description: "stored, queued, processing, completed or failed" }),
  chunk_count: t.Number(),
  pages: nullable(t.Number()),
  size: t.Number(),
  origin: t.String({ description: "owner (console, CLI) or key (pushed with the deployment key)" }),
  error: nullable(t.Object({ code: t.String(), message: nullable(t.String()) })),
  ocr: t.Boolean({ description: "some pages were read from images (OCR)" }),
  ocr_pages: t.Number(),
  ocr_confidence: nullable(t.Number({ description: "mean OCR confidence of those pages, 0..100" })),
  notes: t.Array(
    t.Object({
      page: t.Number(),
      code: t.String({ description: "ocr_low_confidence, ocr_no_text, ocr_skipped or ocr_unavailable" }),
      confidence: t.Optional(t.Number()),
    }),
  ),
  progress: nullable(t.Object({ done: t.Number(), total: t.Number() }, { description: "while processing: parts indexed of the total" })),
  lang: nullable(
    t.String({ description: "the language the document was analyzed in (ISO 639-1), detected or pinned; null until trained" }),
  ),
  status_url: t.String(),
  created_at: t.Number(),
});
export const documentParams = t.Object({ id: t.String({ maxLength: 100 }), documentId: t.String({ maxLength: 100 }) });
export const uploadBody = t.Object({
  file: t.File({ description: "PDF, DOCX, TXT or CSV (type sniffed from the bytes)" }),
  name: t.Optional(t.String({ maxLength: 255 })),
  train: t.Optional(t.String({ description: "true (default) or false" })),
  replace: t.Optional(t.String({ description: "true (default) or false" })),
});
export const readingSchema = t.Object(
  { name: t.String(), done: t.Number(), total: t.Number(), ocr: t.Boolean({ description: "reading scanned pages (OCR)" }) },
  { description: "an upload still being read (parsed, OCR) before it is stored: pages done of total" },
);
export const documentsResponse = t.Object({
  training_status: t.String(),
  data: t.Array(documentSchema),
  reading: t.Optional(t.Array(readingSchema)),
});
export const trainResponse = t.Object({ queued: t.Number(), training_status: t.String() });
export const uploadResponse = t.Object({ document: documentSchema, unchanged: t.Boolean(), training_status: t.String() });

const correctionSchema = t.Object({
  id: t.Number(),
  chat_log_id: t.Number(),
  deployment_id: t.String(),
  question: t.String(),
  answer: t.String(),
  active: t.Boolean(),
  served_count: t.Number(),
  created_at: t.Number(),
  updated_at: t.Number(),
});
/** A chat log's turn as the lists show it (what was asked, answered from which sources, or refused). */
const loggedTurn = {
  conversation_id: t.String(),
  question: t.String(),
  answer: t.String(),
  sources: t.Array(t.String()),
  refused: t.Boolean(),
};
export const correctionItemSchema = t.Object({
  chat_log_id: t.Number(),
  ...loggedTurn,
  rated_at: nullable(t.Number()),
  created_at: t.Number(),
  correction: nullable(correctionSchema),
});
export const correctionsResponse = t.Object({
  open: t.Array(correctionItemSchema),
  corrections: t.Array(
    t.Object({
      id: t.Number(),
      chat_log_id: t.Number(),
      question: t.String(),
      answer: t.String(),
      active: t.Boolean(),
      served_count: t.Number(),
      updated_at: t.Number(),
    }),
  ),
});
export const chatLogParams = t.Object({ id: t.String({ maxLength: 100 }), chatLogId: t.Numeric({ minimum: 1 }) });
export const correctionBody = t.Object({ answer: t.String({ minLength: 1, maxLength: 8000 }) });
export const correctionResponse = correctionSchema;

export const chatLogSchema = t.Object({
  id: t.Number(),
  ...loggedTurn,
  rating: nullable(t.Number()),
  correction_id: nullable(t.Number()),
  tokens: t.Number(),
  visitor_email: nullable(t.String()),
  created_at: t.Number(),
});
/**
 * Paging a newest-first list: at most `limit` items, those older than the id `before`. Whole numbers only: a
 * fractional LIMIT is a datatype mismatch in SQLite (a 500 before this was a 400).
 */
export const pageQuery = (maxLimit: number) => ({
  limit: t.Optional(t.Numeric({ minimum: 1, maximum: maxLimit, multipleOf: 1 })),
  before: t.Optional(t.Numeric({ minimum: 1, multipleOf: 1 })),
});
export const chatLogsQuery = t.Object(pageQuery(200));
export const leadsQuery = t.Object(pageQuery(1000));

export const leadSchema = t.Object({
  id: t.Number(),
  email: t.String(),
  name: t.String(),
  message: t.String(),
  refused_question: t.String(),
  conversation_id: nullable(t.String()),
  chat_log_id: nullable(t.Number()),
  created_at: t.Number(),
  mail_status: nullable(t.String()),
  mail_attempts: t.Number(),
  mail_last_error: nullable(t.String()),
  mail_sent_at: nullable(t.Number()),
  mail_sent_via: nullable(t.String()),
  delivery: t.String({ description: "sent, logged (mail off), queued, retrying, dead-lettered or none" }),
});

const dayRow = t.Object({
  day: t.String(),
  questions: t.Number(),
  answers: t.Number(),
  refusals: t.Number(),
  tokens: t.Number(),
  rated_up: t.Number(),
  rated_down: t.Number(),
  corrections_served: t.Number(),
  leads: t.Number(),
});
const topQuestion = t.Object({ question: t.String(), count: t.Number() });
export const reportQuery = t.Object({
  from: t.String({ description: "first day, YYYY-MM-DD" }),
  to: t.String({ description: "last day (inclusive), YYYY-MM-DD" }),
  tz_offset: t.Optional(t.Numeric({ description: "minutes to add to UTC for the owner's local day (UTC+2 → 120)" })),
});
export const reportResponse = t.Object({
  from: t.String(),
  to: t.String(),
  days: t.Array(dayRow),
  totals: t.Omit(dayRow, ["day"]),
  top_questions: t.Array(topQuestion),
  top_refused: t.Array(topQuestion),
});

export const accountResponse = t.Object({
  id: t.Number(),
  email: t.String(),
  tokens: t.Number(),
  ledger: t.Array(
    t.Object({
      delta: t.Number(),
      balance: t.Number(),
      reason: t.String(),
      created_at: t.Number(),
      deployment_id: nullable(t.String({ description: "an answer's deployment" })),
      deployment_name: nullable(t.String()),
      question: nullable(t.String({ description: "the question answered (null once its chat log was purged or erased)" })),
    }),
  ),
});
export const passwordBody = t.Object({ current_password: t.String({ maxLength: 1024 }), new_password: t.String({ maxLength: 1024 }) });
