import { type FlagCell, flag, type IntCell, num, numOrNull, rating } from "./row-values.ts";

/** One passage an answer stood on: where it is (page or row) and a short verbatim quote to highlight. */
export interface Citation {
  documentId: string;
  chunkId: number;
  source: string;
  pageStart: number | null;
  pageEnd: number | null;
  rowStart: number | null;
  rowEnd: number | null;
  headingPath: string;
  quote: string;
}

/** Citations as stored (JSON); anything unreadable is dropped rather than failing the owner's screen. */
export function parseCitations(raw: string): Citation[] {
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? v.filter((c): c is Citation => !!c && typeof c === "object" && typeof c.documentId === "string") : [];
  } catch {
    return [];
  }
}

/** One answered (or refused) question, as the chat pipeline records it. */
export interface NewTurn {
  deploymentId: string;
  accountId: number;
  conversationId: string;
  completionId: string;
  endpoint: string;
  question: string;
  searchQuery: string;
  answer: string;
  sources: string[];
  promptTokens: number;
  completionTokens: number;
  refused: boolean;
  correctionId: number | null;
  visitorEmail: string | null;
  /** the passages the answer stood on, for the owner's chat logs and the citation viewer */
  citations?: Citation[];
  /** answered with low confidence (the closest passage only): content gaps count it */
  weak?: boolean;
  /** the tokens held for this answer (AccountsStore.reserve): released in the same transaction as the debit */
  reservationId?: number | null;
}

/** A recorded turn: its chat log id, the balance after its debit (null: nothing charged) and the tokens taken. */
export interface RecordedTurn {
  chatLogId: number;
  balance: number | null;
  /** what the debit actually took: the charge, or less when the balance ran out */
  debited: number;
}

/** A turn of a thread, as a follow-up question reads it. */
export interface StoredTurn {
  id: number;
  question: string;
  searchQuery: string;
  answer: string;
  refused: boolean;
}

/** What a turn said and stood on, as the owner's conversation view and the export both show it. */
export interface TurnContent {
  question: string;
  /** the query retrieval ran (the question rewritten with the conversation) */
  searchQuery: string;
  answer: string;
  sources: string[];
  citations: Citation[];
  refused: boolean;
}

/** What every view of a recorded turn shows. */
interface LoggedTurn {
  id: number;
  conversationId: string;
  question: string;
  answer: string;
  sources: string[];
  refused: boolean;
  rating: 0 | 1 | null;
  createdAt: number;
}

/** The parts of a chat log that visitor feedback, handoff and the corrections screen read. */
export interface RatedTurn extends LoggedTurn {
  deploymentId: string;
  ratedAt: number | null;
}

/** A chat log as the owner sees it. */
export interface OwnerChatLog extends LoggedTurn {
  correctionId: number | null;
  tokens: number;
  visitorEmail: string | null;
}

/** chat_logs.sources is a JSON array of document names; anything else reads as no sources. */
export const parseSources = (raw: string): string[] => {
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
  } catch {
    return [];
  }
};

export interface StoredTurnRow {
  id: IntCell;
  question: string;
  search_query: string;
  answer: string;
  refused: FlagCell;
}

export const toStoredTurn = (r: StoredTurnRow): StoredTurn => ({
  id: num(r.id),
  question: r.question,
  searchQuery: r.search_query,
  answer: r.answer,
  refused: flag(r.refused),
});

interface LoggedTurnRow {
  id: IntCell;
  conversation_id: string;
  question: string;
  answer: string;
  sources: string;
  refused: FlagCell;
  rating: IntCell | null;
  created_at: IntCell;
}

const toLoggedTurn = (r: LoggedTurnRow): LoggedTurn => ({
  id: num(r.id),
  conversationId: r.conversation_id,
  question: r.question,
  answer: r.answer,
  sources: parseSources(r.sources),
  refused: flag(r.refused),
  rating: rating(r.rating),
  createdAt: num(r.created_at),
});

export interface RatedTurnRow extends LoggedTurnRow {
  deployment_id: string;
  rated_at: IntCell | null;
}

export const toRatedTurn = (r: RatedTurnRow): RatedTurn => ({
  ...toLoggedTurn(r),
  deploymentId: r.deployment_id,
  ratedAt: numOrNull(r.rated_at),
});

export interface OwnerChatLogRow extends LoggedTurnRow {
  correction_id: IntCell | null;
  /** prompt + completion tokens */
  tokens: IntCell;
  visitor_email: string | null;
}

export const toOwnerChatLog = (r: OwnerChatLogRow): OwnerChatLog => ({
  ...toLoggedTurn(r),
  correctionId: numOrNull(r.correction_id),
  tokens: num(r.tokens),
  visitorEmail: r.visitor_email ?? null,
});

/** Conversation threads. Every lookup takes the deployment: another deployment's thread does not exist here. */
export interface ConversationsStore {
  exists(deploymentId: string, id: string): Promise<boolean>;
  /** Creates the thread or bumps its time; false when the id belongs to another deployment. */
  touch(deploymentId: string, id: string, at?: number): Promise<boolean>;
}

/**
 * Chat log writes and thread reads. A turn's conversation, log row and token debit are one transaction: a turn is
 * either recorded and charged, or neither.
 */
export interface ChatLogsStore {
  /** Records the turn and debits its tokens; returns the chat log id, the balance afterwards and what was taken. */
  record(t: NewTurn): Promise<RecordedTurn>;
  /** The last `limit` turns of a thread, oldest first. */
  thread(deploymentId: string, conversationId: string, limit: number): Promise<StoredTurn[]>;
}

/**
 * Visitor-side reads and the rating write on chat logs. Every query but `findById` takes the deployment id, so
 * one deployment's key can never see or touch another's turns: those are simply "not found".
 */
export interface ChatLogFeedbackStore {
  /** Unscoped: for owner tools that address a chat log by its id alone (the CLI runs as the operator). */
  findById(chatLogId: number): Promise<RatedTurn | null>;
  findScoped(deploymentId: string, chatLogId: number): Promise<RatedTurn | null>;
  /** Stores the latest rating; false when the chat log is not this deployment's. */
  rate(deploymentId: string, chatLogId: number, rating: 0 | 1, at?: number): Promise<boolean>;
  /** The latest refused turn of the conversation, optionally no later than `upToChatLogId`. */
  latestRefusal(deploymentId: string, conversationId: string, upToChatLogId?: number): Promise<RatedTurn | null>;
  /** Answers whose latest rating is 0, newest first (a missing rating time last). */
  listUnhelpful(deploymentId: string, limit?: number): Promise<RatedTurn[]>;
}

/** The owner's view of chat logs; every query takes the deployment id, so other deployments' logs are "not found". */
export interface OwnerChatLogsStore {
  /** Newest first; `beforeId` continues after the last id of a page. */
  list(deploymentId: string, opts: { limit: number; beforeId?: number }): Promise<OwnerChatLog[]>;
  find(deploymentId: string, id: number): Promise<OwnerChatLog | null>;
}
