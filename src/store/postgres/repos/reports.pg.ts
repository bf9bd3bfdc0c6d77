import type { SQL } from "bun";
import { type DayRow, mergeDays, type ReportRange, type ServedCorrectionRow, type TopQuestion } from "../../sqlite/repos/reports.sqlite.ts";
import type { ReportsStore } from "../../contract/store.contract.ts";
import { flag, limitOf, num, type Raw } from "./values.ts";

/**
 * The PostgreSQL twin of repos/reports.repo.ts, computing exactly what SQLite computes:
 * - a day is SQLite's `date(created_at / 1000 + shift, 'unixepoch')`: whole seconds (integer division truncates in
 *   both), shifted into the owner's zone, formatted as a UTC date — the session's TimeZone plays no part;
 * - questions group by SQLite's `lower(trim(q))`: trim strips spaces only (as btrim does) and lower folds A-Z only
 *   (translate, not PostgreSQL's locale-aware lower); MIN and ORDER BY compare bytes (COLLATE "C"), as SQLite's BINARY.
 */
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";

export function createPgReportsRepo(sql: SQL): ReportsStore {
  return {
    async days(r: ReportRange): Promise<DayRow[]> {
      const shift = r.offsetMinutes * 60;
      const chat = (await sql`SELECT to_char(to_timestamp(created_at / 1000 + ${shift}::bigint) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            COUNT(*) AS questions,
            COUNT(CASE WHEN refused = 0 THEN 1 END) AS answers, COUNT(CASE WHEN refused = 1 THEN 1 END) AS refusals,
            SUM(prompt_tokens + completion_tokens) AS tokens,
            COUNT(CASE WHEN rating = 1 THEN 1 END) AS rated_up, COUNT(CASE WHEN rating = 0 THEN 1 END) AS rated_down,
            COUNT(correction_id) AS corrections_served
          FROM chat_logs WHERE deployment_id = ${r.deploymentId} AND created_at >= ${r.fromMs}::bigint AND created_at < ${r.toMs}::bigint
          GROUP BY 1`) as Raw[];
      const leads = (await sql`SELECT to_char(to_timestamp(created_at / 1000 + ${shift}::bigint) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            COUNT(*) AS n
          FROM leads WHERE deployment_id = ${r.deploymentId} AND created_at >= ${r.fromMs}::bigint AND created_at < ${r.toMs}::bigint
          GROUP BY 1`) as Raw[];
      return mergeDays(
        chat.map((c) => ({
          day: c.day as string,
          questions: num(c.questions),
          answers: num(c.answers),
          refusals: num(c.refusals),
          tokens: num(c.tokens),
          rated_up: num(c.rated_up),
          rated_down: num(c.rated_down),
          corrections_served: num(c.corrections_served),
        })),
        leads.map((l) => ({ day: l.day as string, n: num(l.n) })),
      );
    },

    /** The most asked questions (case and surrounding space ignored); `refusedOnly` for those not answered. */
    async topQuestions(r: ReportRange, opts: { refusedOnly: boolean; limit: number }): Promise<TopQuestion[]> {
      const rows = (await sql`SELECT MIN(question COLLATE "C") AS question, COUNT(*) AS n FROM chat_logs
          WHERE deployment_id = ${r.deploymentId} AND created_at >= ${r.fromMs}::bigint AND created_at < ${r.toMs}::bigint
            AND (${opts.refusedOnly ? 1 : 0}::int = 0 OR refused = 1)
          GROUP BY translate(btrim(question), ${UPPER}, ${LOWER}) ORDER BY n DESC, question LIMIT ${limitOf(opts.limit)}`) as Raw[];
      return rows.map((q) => ({ question: q.question as string, count: num(q.n) }));
    },

    /** Every correction of a deployment with how often it was served, most served first. */
    async corrections(deploymentId: string): Promise<ServedCorrectionRow[]> {
      const rows = (await sql`SELECT id, chat_log_id, question, answer, active, served_count, updated_at FROM corrections
          WHERE deployment_id = ${deploymentId} ORDER BY served_count DESC, updated_at DESC, question_norm, active, id`) as Raw[];
      return rows.map((c) => ({
        id: num(c.id),
        chatLogId: num(c.chat_log_id),
        question: c.question as string,
        answer: c.answer as string,
        active: flag(c.active),
        servedCount: num(c.served_count),
        updatedAt: num(c.updated_at),
      }));
    },
  };
}
