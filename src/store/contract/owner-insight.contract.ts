/**
 * Issue 22: what owners see of what visitors get and how long it is kept — the chat logs as conversations, content-gap
 * candidates, the citation viewer's passages, each deployment's privacy policy, the retention purge, erasure of one
 * visitor's data and its record, and the owner's test questions with their runs. Times are milliseconds.
 */
import { type Citation, parseCitations, parseSources, type TurnContent } from "./chat-logs.contract.ts";
import { type PassagePlace, type PassagePlaceRow, toPassagePlace } from "./chunk-index.contract.ts";

export interface ChatLogFilter {
  refused?: boolean;
  ratedDown?: boolean;
  handedOff?: boolean;
  fromMs?: number;
  toMs?: number;
  /** a piece of the question or answer, case-insensitive (ASCII case on SQLite) */
  text?: string;
  limit: number;
  /** conversations whose last turn is older than this turn id (the previous page's `next_before`) */
  beforeId?: number;
}

/** One conversation in the chat logs list: its first question and what happened in it. */
export interface ConversationSummary {
  conversationId: string;
  firstQuestion: string;
  turns: number;
  refused: number;
  ratedDown: number;
  handedOff: boolean;
  visitorEmail: string | null;
  startedAt: number;
  lastAt: number;
  lastId: number;
}

/** One turn in the conversation view. */
export interface ConversationTurn extends TurnContent {
  id: number;
  weak: boolean;
  rating: 0 | 1 | null;
  /** the correction served as this answer, if any */
  correctionId: number | null;
  /** the correction written for this turn's question (after a rating of 0), if any */
  correctedBy: number | null;
  tokens: number;
  visitorEmail: string | null;
  endpoint: string;
  createdAt: number;
}

/** A question content gaps look at: refused, weakly answered, rated 0 or followed by a handoff. */
export interface GapCandidate {
  id: number;
  question: string;
  createdAt: number;
  refused: boolean;
  weak: boolean;
  ratedDown: boolean;
  handedOff: boolean;
}

export type WidgetCitations = "off" | "page" | "document";

export interface DeploymentPolicy {
  deploymentId: string;
  /** chat logs older than this many days are purged; null keeps them until erased */
  retentionDays: number | null;
  /** false: a conversation's text is erased once it has been idle for the transcript window */
  transcripts: boolean;
  /** what a visitor may open from a citation: nothing, the cited page only, or the whole document */
  widgetCitations: WidgetCitations;
  updatedAt: number;
}

export const defaultPolicy = (deploymentId: string): DeploymentPolicy => ({
  deploymentId,
  retentionDays: null,
  transcripts: true,
  widgetCitations: "off",
  updatedAt: 0,
});

export interface PurgeResult {
  /** chat logs removed */
  removed: number;
  /** chat logs kept because a correction is anchored on them, their visitor's data removed */
  scrubbed: number;
  conversations: number;
}

export type ErasureSubject = { kind: "conversation"; conversationId: string } | { kind: "email"; email: string };

export interface ErasureCounts {
  chatLogs: number;
  leads: number;
  mails: number;
  conversations: number;
  /** chat logs of the visitor that anchor an owner's correction: the turn is emptied, the correction's question kept */
  correctionsKept: number;
}

export interface ErasureRecord extends ErasureCounts {
  id: number;
  accountId: number;
  subjectKind: ErasureSubject["kind"];
  /** SHA-256 (hex) of the identifier as given (an email lower-cased): proof of what was erased, not the data */
  subjectHash: string;
  deployments: string[];
  via: string;
  createdAt: number;
}

export type TestKind = "answer" | "refuse";

export interface TestQuestion {
  id: number;
  deploymentId: string;
  question: string;
  history: { role: "user" | "assistant"; content: string }[];
  kind: TestKind;
  expectAny: string[];
  createdAt: number;
  updatedAt: number;
}

export type NewTestQuestion = Omit<TestQuestion, "id" | "createdAt" | "updatedAt">;

export interface TestRun {
  id: number;
  deploymentId: string;
  runKey: string;
  trigger: "training" | "manual";
  status: "running" | "done" | "failed";
  total: number;
  passed: number;
  error: string | null;
  startedAt: number;
  finishedAt: number | null;
}

export interface TestResult {
  runId: number;
  testQuestionId: number;
  question: string;
  kind: TestKind;
  verdict: string;
  passed: boolean;
  answer: string;
  searchQuery: string;
  sources: string[];
  citations: Citation[];
}

/** 15-minute report buckets: reports group by the owner's local day, and every UTC offset in use is a multiple of 15 minutes. */
export const ROLLUP_BUCKET_MS = 15 * 60_000;

/** A document's passage as indexed, for the citation viewer (TXT, DOCX, CSV: the text around the cited one). */
export interface Passage extends PassagePlace {
  id: number;
}

export const toPassage = (r: Record<string, unknown>): Passage => ({
  ...toPassagePlace(r as unknown as PassagePlaceRow),
  id: Number(r.id),
});

/** The conversations list's row (both drivers select it with the same SQL). */
export interface SummaryRow {
  conversation_id: string;
  first_question: string;
  turns: number;
  refused: number;
  rated_down: number;
  handed_off: number | boolean;
  visitor_email: string | null;
  started_at: number;
  last_at: number;
  last_id: number;
}

export const toSummary = (r: SummaryRow): ConversationSummary => ({
  conversationId: r.conversation_id,
  firstQuestion: r.first_question,
  turns: Number(r.turns),
  refused: Number(r.refused),
  ratedDown: Number(r.rated_down),
  handedOff: r.handed_off === true || Number(r.handed_off) === 1,
  visitorEmail: r.visitor_email,
  startedAt: Number(r.started_at),
  lastAt: Number(r.last_at),
  lastId: Number(r.last_id),
});

export interface TurnRow {
  id: number;
  question: string;
  search_query: string;
  answer: string;
  sources: string;
  citations: string;
  refused: number;
  weak: number;
  rating: number | null;
  correction_id: number | null;
  corrected_by: number | null;
  tokens: number;
  visitor_email: string | null;
  endpoint: string;
  created_at: number;
}

const orNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export const toTurn = (r: TurnRow): ConversationTurn => ({
  id: Number(r.id),
  question: r.question,
  searchQuery: r.search_query,
  answer: r.answer,
  sources: parseSources(r.sources),
  citations: parseCitations(r.citations),
  refused: Number(r.refused) === 1,
  weak: Number(r.weak) === 1,
  rating: orNull(r.rating) as 0 | 1 | null,
  correctionId: orNull(r.correction_id),
  correctedBy: orNull(r.corrected_by),
  tokens: Number(r.tokens),
  visitorEmail: r.visitor_email,
  endpoint: r.endpoint,
  createdAt: Number(r.created_at),
});

export const toGap = (r: Record<string, unknown>): GapCandidate => ({
  id: Number(r.id),
  question: r.question as string,
  createdAt: Number(r.created_at),
  refused: Number(r.refused) === 1,
  weak: Number(r.weak) === 1,
  ratedDown: Number(r.rated_down) === 1,
  handedOff: Number(r.handed_off) === 1,
});

export interface PolicyPatch {
  retentionDays?: number | null;
  transcripts?: boolean;
  widgetCitations?: DeploymentPolicy["widgetCitations"];
}

export interface ErasureInput {
  accountId: number;
  deploymentIds: string[];
  subject: ErasureSubject;
  subjectHash: string;
  via: string;
  at?: number;
}

export interface PolicyRow {
  deployment_id: string;
  retention_days: number | null;
  transcripts: number;
  widget_citations: DeploymentPolicy["widgetCitations"];
  updated_at: number;
}

export const toPolicy = (r: PolicyRow): DeploymentPolicy => ({
  deploymentId: r.deployment_id,
  retentionDays: r.retention_days === null ? null : Number(r.retention_days),
  transcripts: Number(r.transcripts) === 1,
  widgetCitations: r.widget_citations,
  updatedAt: Number(r.updated_at),
});

export const mergePolicy = (old: DeploymentPolicy, p: PolicyPatch, at: number): DeploymentPolicy => ({
  deploymentId: old.deploymentId,
  retentionDays: p.retentionDays === undefined ? old.retentionDays : p.retentionDays,
  transcripts: p.transcripts ?? old.transcripts,
  widgetCitations: p.widgetCitations ?? old.widgetCitations,
  updatedAt: at,
});

export const toErasure = (r: Record<string, unknown>): ErasureRecord => ({
  id: Number(r.id),
  accountId: Number(r.account_id),
  subjectKind: r.subject_kind as ErasureRecord["subjectKind"],
  subjectHash: r.subject_hash as string,
  deployments: JSON.parse(r.deployments as string) as string[],
  chatLogs: Number(r.chat_logs),
  leads: Number(r.leads),
  mails: Number(r.mails),
  conversations: Number(r.conversations),
  correctionsKept: Number(r.corrections_kept),
  via: r.via as string,
  createdAt: Number(r.created_at),
});

export const toTestQuestion = (r: Record<string, unknown>): TestQuestion => ({
  id: Number(r.id),
  deploymentId: r.deployment_id as string,
  question: r.question as string,
  history: JSON.parse(r.history as string) as TestQuestion["history"],
  kind: r.kind as TestQuestion["kind"],
  expectAny: JSON.parse(r.expect_any as string) as string[],
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export const toRun = (r: Record<string, unknown>): TestRun => ({
  id: Number(r.id),
  deploymentId: r.deployment_id as string,
  runKey: r.run_key as string,
  trigger: r.trigger as TestRun["trigger"],
  status: r.status as TestRun["status"],
  total: Number(r.total),
  passed: Number(r.passed),
  error: (r.error as string | null) ?? null,
  startedAt: Number(r.started_at),
  finishedAt: r.finished_at === null ? null : Number(r.finished_at),
});

export const toResult = (r: Record<string, unknown>): TestResult => ({
  runId: Number(r.run_id),
  testQuestionId: Number(r.test_question_id),
  question: r.question as string,
  kind: r.kind as TestResult["kind"],
  verdict: r.verdict as string,
  passed: Number(r.passed) === 1,
  answer: r.answer as string,
  searchQuery: r.search_query as string,
  sources: parseSources(r.sources as string),
  citations: parseCitations(r.citations as string),
});

/**
 * The owner's chat logs as conversations, one conversation's turns, the questions content gaps group, and a
 * document's passages for the citation viewer. Every lookup takes the deployment: another's rows are not found.
 */
export interface ConversationLogsStore {
  /** Conversations matching a filter (a conversation matches when any of its turns does), newest activity first. */
  conversations(deploymentId: string, f: ChatLogFilter): Promise<ConversationSummary[]>;
  /** A conversation's turns in order (at most 500). */
  conversation(deploymentId: string, conversationId: string): Promise<ConversationTurn[]>;
  turn(deploymentId: string, id: number): Promise<ConversationTurn | null>;
  /** Refused, weak, rated-0 and handed-off questions since `sinceMs`, newest first (turns a correction answered left out). */
  gapCandidates(deploymentId: string, sinceMs: number, limit: number): Promise<GapCandidate[]>;
  /** The newest `limit` questions asked since `sinceMs` (how telling each word is, for grouping gaps). */
  questions(deploymentId: string, sinceMs: number, limit: number): Promise<string[]>;
  /** How many questions were asked since `sinceMs`. */
  questionCount(deploymentId: string, sinceMs: number): Promise<number>;
  /** A document's passages in order from `fromOrd`. */
  passages(deploymentId: string, documentId: string, fromOrd: number, limit: number): Promise<Passage[]>;
  /** The position of one passage in its document, or null. */
  passageOrd(deploymentId: string, documentId: string, chunkId: number): Promise<number | null>;
}

/**
 * Each deployment's privacy policy, the retention purge (report counts move into rollups), "no transcripts"
 * scrubbing, and erasure of one visitor's data with its record. Each write is one transaction.
 */
export interface VisitorDataStore {
  /** The policy, or the defaults when none was set. */
  policy(deploymentId: string): Promise<DeploymentPolicy>;
  setPolicy(deploymentId: string, patch: PolicyPatch): Promise<DeploymentPolicy>;
  /** The secret that signs the deployment's citation links: `fresh` the first time, then the same on every node. */
  linkSecret(deploymentId: string, fresh: string): Promise<string>;
  /** Policies the background job acts on: a retention period, or no transcripts. */
  activePolicies(): Promise<DeploymentPolicy[]>;
  /** Chat logs created before `beforeMs` are counted into report rollups and removed; a correction's anchor is emptied instead. */
  purge(deploymentId: string, beforeMs: number): Promise<PurgeResult>;
  /** Empties the turns of conversations idle since `idleBeforeMs` (a question rated 0 keeps its text); returns how many. */
  scrubIdle(deploymentId: string, idleBeforeMs: number): Promise<number>;
  /** Removes the visitor's chat logs, leads, their mails and conversations in the deployments, and records it. */
  erase(input: ErasureInput): Promise<ErasureRecord>;
  /** The account's erasures, newest first. */
  erasures(accountId: number, limit: number): Promise<ErasureRecord[]>;
}

/** The owner's test questions, their runs and each run's results; every lookup takes the deployment. */
export interface TestQuestionsStore {
  list(deploymentId: string): Promise<TestQuestion[]>;
  count(deploymentId: string): Promise<number>;
  create(q: NewTestQuestion): Promise<TestQuestion>;
  update(deploymentId: string, id: number, q: Omit<NewTestQuestion, "deploymentId">): Promise<TestQuestion | null>;
  remove(deploymentId: string, id: number): Promise<boolean>;
  /** Starts a run unless one with this key exists (another node took it): null then. */
  startRun(deploymentId: string, runKey: string, trigger: TestRun["trigger"], total: number): Promise<TestRun | null>;
  /** The run's results and its end, in one transaction. */
  finishRun(runId: number, results: TestResult[], error?: string | null): Promise<void>;
  runs(deploymentId: string, limit: number): Promise<TestRun[]>;
  results(deploymentId: string, runId: number): Promise<TestResult[]>;
  /** Runs still "running" that started before `beforeMs` (their node died) are marked failed. */
  failStale(beforeMs: number): Promise<number>;
}
