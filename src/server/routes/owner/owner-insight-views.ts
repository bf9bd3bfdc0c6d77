import { toSeconds } from "../../../shared/wire-time.ts";
import type {
  Citation,
  ConversationSummary,
  ConversationTurn,
  DeploymentPolicy,
  ErasureRecord,
  TestQuestion,
  TestRun,
} from "../../../store/contract/index.ts";

export const citationView = (c: Citation) => ({
  document_id: c.documentId,
  chunk_id: c.chunkId,
  source: c.source,
  page_start: c.pageStart,
  page_end: c.pageEnd,
  row_start: c.rowStart,
  row_end: c.rowEnd,
  heading_path: c.headingPath,
  quote: c.quote,
});

export const summaryView = (c: ConversationSummary) => ({
  conversation_id: c.conversationId,
  first_question: c.firstQuestion,
  turns: c.turns,
  refused: c.refused,
  rated_down: c.ratedDown,
  handed_off: c.handedOff,
  visitor_email: c.visitorEmail,
  started_at: toSeconds(c.startedAt),
  last_at: toSeconds(c.lastAt),
});

export const turnView = (t: ConversationTurn) => ({
  id: t.id,
  question: t.question,
  search_query: t.searchQuery,
  answer: t.answer,
  sources: t.sources,
  citations: t.citations.map(citationView),
  refused: t.refused,
  weak: t.weak,
  rating: t.rating,
  correction_id: t.correctionId,
  corrected_by: t.correctedBy,
  tokens: t.tokens,
  visitor_email: t.visitorEmail,
  created_at: toSeconds(t.createdAt),
});

export const testQuestionView = (q: TestQuestion) => ({
  id: q.id,
  question: q.question,
  kind: q.kind,
  expect_any: q.expectAny,
  history: q.history,
  created_at: toSeconds(q.createdAt),
  updated_at: toSeconds(q.updatedAt),
});

export const runView = (r: TestRun) => ({
  id: r.id,
  trigger: r.trigger,
  status: r.status,
  total: r.total,
  passed: r.passed,
  error: r.error,
  started_at: toSeconds(r.startedAt),
  finished_at: r.finishedAt === null ? null : toSeconds(r.finishedAt),
});

export const policyView = (p: DeploymentPolicy) => ({
  retention_days: p.retentionDays,
  transcripts: p.transcripts,
  widget_citations: p.widgetCitations,
});

export const erasureView = (e: ErasureRecord) => ({
  id: e.id,
  subject_kind: e.subjectKind,
  subject_hash: e.subjectHash,
  deployments: e.deployments,
  chat_logs: e.chatLogs,
  leads: e.leads,
  mails: e.mails,
  conversations: e.conversations,
  corrections_kept: e.correctionsKept,
  via: e.via,
  created_at: toSeconds(e.createdAt),
});
