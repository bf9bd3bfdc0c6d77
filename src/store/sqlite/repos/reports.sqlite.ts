import type { Db } from "../db.ts";

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

/** One day's chat_logs aggregates as both engines select them (numbers already). */
export interface ChatDayRow {
  day: string;
  questions: number;
  answers: number;
  refusals: number;
  tokens: number;
  rated_up: number;
  rated_down: number;
  corrections_served: number;
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

/** The days that had chats or leads, in date order: chat aggregates and lead counts put together. */
export function mergeDays(chat: ChatDayRow[], leads: { day: string; n: number }[]): DayRow[] {
  const out = new Map<string, DayRow>();
  for (const c of chat) {
    out.set(c.day, {
      ...emptyDay(c.day),
      questions: c.questions,
      answers: c.answers,
      refusals: c.refusals,
      tokens: c.tokens,
      ratedUp: c.rated_up,
      ratedDown: c.rated_down,
      correctionsServed: c.corrections_served,
    });
  }
  for (const l of leads) out.set(l.day, { ...(out.get(l.day) ?? emptyDay(l.day)), leads: l.n });
  return [...out.values()].sort((a, b) => a.day.localeCompare(b.day));
}

// SQLite's date() over epoch seconds shifted into the owner's time zone.
const DAY = "date(created_at / 1000 + ?, 'unixepoch')";

/** Read-only aggregations over chat_logs, leads and corrections for the owner's reports and screens. */
export function createReportsRepo(db: Db) {
  return {
    days(r: ReportRange): DayRow[] {
      const shift = r.offsetMinutes * 60;
      const chat = db
        .query<ChatDayRow, [number, string, number, number]>(
          `SELECT ${DAY} AS day, COUNT(*) AS questions,
                  COUNT(CASE WHEN refused = 0 THEN 1 END) AS answers, COUNT(CASE WHEN refused = 1 THEN 1 END) AS refusals,
                  SUM(prompt_tokens + completion_tokens) AS tokens,
                  COUNT(CASE WHEN rating = 1 THEN 1 END) AS rated_up, COUNT(CASE WHEN rating = 0 THEN 1 END) AS rated_down,
                  COUNT(correction_id) AS corrections_served
             FROM chat_logs WHERE deployment_id = ? AND created_at >= ? AND created_at < ?
            GROUP BY day`,
        )
        .all(shift, r.deploymentId, r.fromMs, r.toMs);
      const leads = db
        .query<{ day: string; n: number }, [number, string, number, number]>(
          `SELECT ${DAY} AS day, COUNT(*) AS n FROM leads WHERE deployment_id = ? AND created_at >= ? AND created_at < ? GROUP BY day`,
        )
        .all(shift, r.deploymentId, r.fromMs, r.toMs);
      return mergeDays(chat, leads);
    },

    /** The most asked questions (case and surrounding space ignored); `refusedOnly` for those not answered. */
    topQuestions(r: ReportRange, opts: { refusedOnly: boolean; limit: number }): TopQuestion[] {
      return db
        .query<{ question: string; n: number }, [string, number, number, number, number]>(
          `SELECT MIN(question) AS question, COUNT(*) AS n FROM chat_logs
            WHERE deployment_id = ? AND created_at >= ? AND created_at < ? AND (? = 0 OR refused = 1)
            GROUP BY lower(trim(question)) ORDER BY n DESC, question LIMIT ?`,
        )
        .all(r.deploymentId, r.fromMs, r.toMs, opts.refusedOnly ? 1 : 0, opts.limit)
        .map((q) => ({ question: q.question, count: q.n }));
    },

    /**
     * Every correction of a deployment with how often it was served, most served first; ties in the order of the
     * normalised question (the order the lookup index gave them before this was spelled out), so both engines agree.
     */
    corrections(deploymentId: string): ServedCorrectionRow[] {
      return db
        .query<
          { id: number; chat_log_id: number; question: string; answer: string; active: number; served_count: number; updated_at: number },
          [string]
        >(
          "SELECT id, chat_log_id, question, answer, active, served_count, updated_at FROM corrections WHERE deployment_id = ? ORDER BY served_count DESC, updated_at DESC, question_norm, active, id",
        )
        .all(deploymentId)
        .map((c) => ({
          id: c.id,
          chatLogId: c.chat_log_id,
          question: c.question,
          answer: c.answer,
          active: c.active === 1,
          servedCount: c.served_count,
          updatedAt: c.updated_at,
        }));
    },
  };
}

export type ReportsRepo = ReturnType<typeof createReportsRepo>;
