import { parseCitations, parseSources, type TurnContent } from "./chat-logs.contract.ts";
import { type FlagCell, flag, type IntCell, num, numOrNull, rating } from "./row-values.ts";

/** A chat log as exported: every field an owner asks for, in the store's units (ms, token counts). */
export interface ExportedChatLog extends TurnContent {
  id: number;
  conversationId: string;
  endpoint: string;
  rating: 0 | 1 | null;
  ratedAt: number | null;
  /** the owner's correction that was served as this answer */
  correctionId: number | null;
  promptTokens: number;
  completionTokens: number;
  visitorEmail: string | null;
  createdAt: number;
}

export interface ExportRow {
  id: IntCell;
  conversation_id: string;
  endpoint: string;
  question: string;
  search_query: string;
  answer: string;
  sources: string;
  citations: string;
  refused: FlagCell;
  rating: IntCell | null;
  rated_at: IntCell | null;
  correction_id: IntCell | null;
  prompt_tokens: IntCell;
  completion_tokens: IntCell;
  visitor_email: string | null;
  created_at: IntCell;
}

export const toExported = (r: ExportRow): ExportedChatLog => ({
  id: num(r.id),
  conversationId: r.conversation_id,
  endpoint: r.endpoint,
  question: r.question,
  searchQuery: r.search_query,
  answer: r.answer,
  sources: parseSources(r.sources),
  citations: parseCitations(r.citations),
  refused: flag(r.refused),
  rating: rating(r.rating),
  ratedAt: numOrNull(r.rated_at),
  correctionId: numOrNull(r.correction_id),
  promptTokens: num(r.prompt_tokens),
  completionTokens: num(r.completion_tokens),
  visitorEmail: r.visitor_email,
  createdAt: num(r.created_at),
});

/** Where the next page starts: after this log in (created_at, id) order. */
export interface ExportCursor {
  createdAt: number;
  id: number;
}

export interface ExportPageQuery {
  /** created_at >= from (ms) */
  from: number;
  /** created_at < to (ms) */
  to: number;
  after?: ExportCursor;
  limit: number;
}

export const EXPORT_COLUMNS =
  "id, conversation_id, endpoint, question, search_query, answer, sources, citations, refused, rating, rated_at, correction_id, prompt_tokens, completion_tokens, visitor_email, created_at";

/**
 * A deployment's chat logs for a date range, one bounded page at a time in (created_at, id) order (keyset paging on
 * the deployment/time index), so an export of a year of logs never holds more than a page.
 */
export interface ChatLogExportStore {
  /** Up to `limit` logs with from <= created_at < to, after the cursor (from the start when absent). */
  page(deploymentId: string, q: ExportPageQuery): Promise<ExportedChatLog[]>;
}
