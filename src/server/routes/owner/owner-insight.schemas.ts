import { t } from "elysia";
import { pageQuery } from "./owner.schemas.ts";

/** Request and response shapes of the owner API's chat logs, content gaps, test questions and privacy routes. */
const nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()]);
const flag = t.Optional(t.Union([t.Literal("true"), t.Literal("false"), t.Literal("1"), t.Literal("0")]));

export const citationSchema = t.Object({
  document_id: t.String(),
  chunk_id: t.Number({ description: "the cited passage (opens in the viewer)" }),
  source: t.String({ description: "document name without its extension" }),
  page_start: nullable(t.Number()),
  page_end: nullable(t.Number()),
  row_start: nullable(t.Number()),
  row_end: nullable(t.Number()),
  heading_path: t.String(),
  quote: t.String({ description: "the start of the cited passage, verbatim (what the viewer highlights)" }),
});

export const conversationsQuery = t.Object({
  refused: flag,
  rated_down: flag,
  handed_off: flag,
  from: t.Optional(t.String({ description: "first local day, YYYY-MM-DD" })),
  to: t.Optional(t.String({ description: "last local day, YYYY-MM-DD" })),
  tz_offset: t.Optional(t.Numeric({ minimum: -840, maximum: 840, multipleOf: 1 })),
  q: t.Optional(t.String({ maxLength: 200, description: "text in a question or answer" })),
  ...pageQuery(200),
});

export const conversationSummarySchema = t.Object({
  conversation_id: t.String(),
  first_question: t.String(),
  turns: t.Number(),
  refused: t.Number({ description: "turns refused" }),
  rated_down: t.Number({ description: "turns rated 0" }),
  handed_off: t.Boolean(),
  visitor_email: nullable(t.String()),
  started_at: t.Number(),
  last_at: t.Number(),
});

export const conversationsResponse = t.Object({
  data: t.Array(conversationSummarySchema),
  next_before: nullable(t.Number({ description: "pass as `before` for the next (older) page" })),
});

export const turnSchema = t.Object({
  id: t.Number({ description: "the chat log id" }),
  question: t.String(),
  search_query: t.String(),
  answer: t.String(),
  sources: t.Array(t.String()),
  citations: t.Array(citationSchema),
  refused: t.Boolean(),
  weak: t.Boolean({ description: "answered, but the best passage barely cleared the refusal bar" }),
  rating: nullable(t.Number()),
  correction_id: nullable(t.Number({ description: "the correction served as this answer" })),
  corrected_by: nullable(t.Number({ description: "the active correction written for this turn" })),
  tokens: t.Number(),
  visitor_email: nullable(t.String()),
  created_at: t.Number(),
});

export const conversationParams = t.Object({ id: t.String({ maxLength: 100 }), conversationId: t.String({ maxLength: 200 }) });

export const conversationResponse = t.Object({
  conversation_id: t.String(),
  turns: t.Array(turnSchema),
  leads: t.Array(t.Object({ id: t.Number(), email: t.String(), name: t.String(), message: t.String(), created_at: t.Number() })),
});

export const gapsQuery = t.Object({ days: t.Optional(t.Numeric({ minimum: 1, maximum: 366, multipleOf: 1 })) });

export const gapsResponse = t.Object({
  days: t.Number(),
  questions: t.Number({ description: "questions asked in the period" }),
  gap_questions: t.Number({ description: "of which refused, weak, rated 0 or handed off (and not since corrected)" }),
  trained_at: nullable(t.Number()),
  groups: t.Array(
    t.Object({
      terms: t.Array(t.String(), { description: "the analyzer's terms (stems) the group's questions share" }),
      words: t.Array(t.String(), { description: "the same terms as visitors wrote them" }),
      count: t.Number(),
      weight: t.Number({ description: "the count with each question's weight halved every 30 days: the ranking" }),
      last_at: t.Number(),
      reasons: t.Object({ refused: t.Number(), weak: t.Number(), rated_down: t.Number(), handed_off: t.Number() }),
      answered_now: t.Number({ description: "questions of the group that get an answer now (asked again after the last training)" }),
      wordings: t.Array(
        t.Object({
          question: t.String(),
          count: t.Number(),
          last_at: t.Number(),
          chat_log_ids: t.Array(t.Number()),
          now_answered: nullable(t.Boolean()),
          now_sources: t.Array(t.String()),
        }),
      ),
    }),
  ),
});

export const gapAnswerBody = t.Object({
  chat_log_ids: t.Array(t.Number({ minimum: 1 }), { minItems: 1, maxItems: 50 }),
  answer: t.String({ minLength: 1, maxLength: 8000 }),
});

const history = t.Array(t.Object({ role: t.Union([t.Literal("user"), t.Literal("assistant")]), content: t.String({ maxLength: 8000 }) }), {
  maxItems: 12,
});

export const testQuestionBody = t.Object({
  question: t.String({ minLength: 1, maxLength: 4000 }),
  kind: t.Union([t.Literal("answer"), t.Literal("refuse")], {
    description: "answer: a right answer contains one of expect_any; refuse: should be refused",
  }),
  expect_any: t.Optional(t.Array(t.String({ maxLength: 500 }), { maxItems: 20 })),
  history: t.Optional(history),
});

export const testQuestionSchema = t.Object({
  id: t.Number(),
  question: t.String(),
  kind: t.String(),
  expect_any: t.Array(t.String()),
  history,
  created_at: t.Number(),
  updated_at: t.Number(),
});

export const testQuestionParams = t.Object({ id: t.String({ maxLength: 100 }), testId: t.Numeric({ minimum: 1 }) });

const runSchema = t.Object({
  id: t.Number(),
  trigger: t.String({ description: "training (after a training completed) or manual" }),
  status: t.String({ description: "running, done or failed" }),
  total: t.Number(),
  passed: t.Number(),
  error: nullable(t.String()),
  started_at: t.Number(),
  finished_at: nullable(t.Number()),
});

export const testSummaryResponse = t.Object({
  questions: t.Array(testQuestionSchema),
  runs: t.Array(runSchema),
  running: t.Boolean(),
  latest: nullable(runSchema),
  previous: nullable(runSchema),
  results: t.Array(
    t.Object({
      test_question_id: t.Number(),
      question: t.String(),
      kind: t.String(),
      verdict: t.String({ description: "correct, wrong, refused, refused_right, answered_wrongly or error" }),
      passed: t.Boolean(),
      change: t.String({ description: "since the run before: new, same, fixed or broke" }),
      answer: t.String(),
      search_query: t.String(),
      sources: t.Array(t.String()),
      citations: t.Array(citationSchema),
    }),
  ),
});

export const policySchema = t.Object({
  retention_days: nullable(t.Number({ description: "chat logs older than this are purged (report counts are kept); null keeps them" })),
  transcripts: t.Boolean({ description: "false: a conversation's text is erased 30 minutes after its last turn" }),
  widget_citations: t.Union([t.Literal("off"), t.Literal("page"), t.Literal("document")], {
    description: "what visitors may open from a citation: nothing, the cited page only (signed, short-lived link), or the whole document",
  }),
});

export const policyBody = t.Partial(policySchema);

export const erasureBody = t.Object({
  email: t.Optional(t.String({ maxLength: 320 })),
  conversation_id: t.Optional(t.String({ maxLength: 200 })),
  deployment_id: t.Optional(t.String({ maxLength: 100, description: "only this deployment (default: every deployment of the account)" })),
});

export const erasureSchema = t.Object({
  id: t.Number(),
  subject_kind: t.String(),
  subject_hash: t.String({ description: "SHA-256 of the identifier (an email lower-cased): proof of what was erased, not the data" }),
  deployments: t.Array(t.String()),
  chat_logs: t.Number(),
  leads: t.Number(),
  mails: t.Number(),
  conversations: t.Number(),
  corrections_kept: t.Number({ description: "turns kept (emptied) because an owner's correction is anchored on them" }),
  via: t.String(),
  created_at: t.Number(),
});
