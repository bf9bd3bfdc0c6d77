import { type FlagCell, flag, type IntCell, num } from "./row-values.ts";

export interface DayRow {
  day: string;
  questions: number;
  answers: number;
  refusals: number;
  tokens: number;
  ratedUp: number;
  ratedDown: number;
  correctionsServed: number;
  leads: number;
}

export interface TopQuestion {
  question: string;
  count: number;
}

export interface ServedCorrectionRow {
  id: number;
  chatLogId: number;
  question: string;
  answer: string;
  active: boolean;
  servedCount: number;
  updatedAt: number;
}

/** One deployment over [fromMs, toMs), days in local time shifted by `offsetMinutes` from UTC. */
export interface ReportRange {
  deploymentId: string;
  fromMs: number;
  toMs: number;
  offsetMinutes: number;
}

/** One day's chat_logs aggregates as both engines select them. */
export interface ChatDayRow {
  day: string;
  questions: IntCell;
  answers: IntCell;
  refusals: IntCell;
  tokens: IntCell | null;
  rated_up: IntCell;
  rated_down: IntCell;
  corrections_served: IntCell;
}

/** A day with nothing in it. */
export const emptyDay = (day: string): DayRow => ({
  day,
  questions: 0,
  answers: 0,
  refusals: 0,
  tokens: 0,
  ratedUp: 0,
  ratedDown: 0,
  correctionsServed: 0,
  leads: 0,
});

/** Live chat log days plus the counts the retention purge and erasures kept (report_rollups), day by day. */
export function addRollups(live: ChatDayRow[], rolled: ChatDayRow[]): ChatDayRow[] {
  const out = new Map(live.map((d) => [d.day, { ...d }]));
  const keys = ["questions", "answers", "refusals", "tokens", "rated_up", "rated_down", "corrections_served"] as const;
  for (const r of rolled) {
    const d = out.get(r.day);
    if (!d) out.set(r.day, { ...r });
    else for (const k of keys) d[k] = num(d[k] ?? 0) + num(r[k] ?? 0);
  }
  return [...out.values()];
}

/** The days that had chats or leads, in date order: chat aggregates and lead counts put together. */
export function mergeDays(chat: ChatDayRow[], leads: { day: string; n: IntCell }[]): DayRow[] {
  const out = new Map<string, DayRow>();
  for (const c of chat) {
    out.set(c.day, {
      ...emptyDay(c.day),
      questions: num(c.questions),
      answers: num(c.answers),
      refusals: num(c.refusals),
      tokens: num(c.tokens ?? 0),
      ratedUp: num(c.rated_up),
      ratedDown: num(c.rated_down),
      correctionsServed: num(c.corrections_served),
    });
  }
  for (const l of leads) out.set(l.day, { ...(out.get(l.day) ?? emptyDay(l.day)), leads: num(l.n) });
  return [...out.values()].sort((a, b) => a.day.localeCompare(b.day));
}

export interface ServedCorrectionDbRow {
  id: IntCell;
  chat_log_id: IntCell;
  question: string;
  answer: string;
  active: FlagCell;
  served_count: IntCell;
  updated_at: IntCell;
}

export const toServedCorrection = (c: ServedCorrectionDbRow): ServedCorrectionRow => ({
  id: num(c.id),
  chatLogId: num(c.chat_log_id),
  question: c.question,
  answer: c.answer,
  active: flag(c.active),
  servedCount: num(c.served_count),
  updatedAt: num(c.updated_at),
});

/** Read-only aggregations over chat logs, leads and corrections for the owner's reports and screens. */
export interface ReportsStore {
  /** The days that had chats or leads, in date order. */
  days(r: ReportRange): Promise<DayRow[]>;
  /**
   * The most asked questions (A-Z folded, surrounding spaces ignored, compared byte by byte); `refusedOnly` for
   * those not answered.
   */
  topQuestions(r: ReportRange, opts: { refusedOnly: boolean; limit: number }): Promise<TopQuestion[]>;
  /** Every correction of a deployment with how often it was served, most served first, then by the normalised question. */
  corrections(deploymentId: string): Promise<ServedCorrectionRow[]>;
}
