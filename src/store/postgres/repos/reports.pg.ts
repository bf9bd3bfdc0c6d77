import type { SQL } from "bun";
import type { ChatDayRow, ReportsStore, ServedCorrectionDbRow } from "../../contract/reports.contract.ts";
import { addRollups, mergeDays, toServedCorrection } from "../../contract/reports.contract.ts";
import { limitOf, rows } from "./values.ts";

/**
 * Reports on PostgreSQL, computing exactly what SQLite computes:
 * - a day is SQLite's `date(created_at / 1000 + shift, 'unixepoch')`: whole seconds (integer division truncates in
 *   both), shifted into the owner's zone, formatted as a UTC date — the session's TimeZone plays no part;
 * - questions group by SQLite's `lower(trim(q))`: trim strips spaces only (as btrim does) and lower folds A-Z only
 *   (translate, not PostgreSQL's locale-aware lower); MIN and ORDER BY compare bytes (COLLATE "C"), as SQLite's BINARY.
 */
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";

export function createPgReportsRepo(sql: SQL): ReportsStore {
  return {
    async days(r) {
      const shift = r.offsetMinutes * 60;
      const chat =
        await rows<ChatDayRow>(sql`SELECT to_char(to_timestamp(created_at / 1000 + ${shift}::bigint) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            COUNT(*) AS questions,
            COUNT(CASE WHEN refused = 0 THEN 1 END) AS answers, COUNT(CASE WHEN refused = 1 THEN 1 END) AS refusals,
            SUM(prompt_tokens + completion_tokens) AS tokens,
            COUNT(CASE WHEN rating = 1 THEN 1 END) AS rated_up, COUNT(CASE WHEN rating = 0 THEN 1 END) AS rated_down,
            COUNT(correction_id) AS corrections_served
          FROM chat_logs WHERE deployment_id = ${r.deploymentId} AND created_at >= ${r.fromMs}::bigint AND created_at < ${r.toMs}::bigint
            AND rolled_up = 0
          GROUP BY 1`);
      const rolled =
        await rows<ChatDayRow>(sql`SELECT to_char(to_timestamp(bucket / 1000 + ${shift}::bigint) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            SUM(questions) AS questions, SUM(answers) AS answers, SUM(refusals) AS refusals, SUM(tokens) AS tokens,
            SUM(rated_up) AS rated_up, SUM(rated_down) AS rated_down, SUM(corrections_served) AS corrections_served
          FROM report_rollups WHERE deployment_id = ${r.deploymentId} AND bucket >= ${r.fromMs}::bigint AND bucket < ${r.toMs}::bigint
          GROUP BY 1`);
      const leads = await rows<{
        day: string;
        n: string;
      }>(sql`SELECT to_char(to_timestamp(created_at / 1000 + ${shift}::bigint) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            COUNT(*) AS n
          FROM leads WHERE deployment_id = ${r.deploymentId} AND created_at >= ${r.fromMs}::bigint AND created_at < ${r.toMs}::bigint
          GROUP BY 1`);
      return mergeDays(addRollups(chat, rolled), leads);
    },

    /** The most asked questions (case and surrounding space ignored); `refusedOnly` for those not answered. */
    async topQuestions(r, opts) {
      const found = await rows<{
        question: string;
        n: string;
      }>(sql`SELECT MIN(question COLLATE "C") AS question, COUNT(*) AS n FROM chat_logs
          WHERE deployment_id = ${r.deploymentId} AND created_at >= ${r.fromMs}::bigint AND created_at < ${r.toMs}::bigint
            AND (${opts.refusedOnly ? 1 : 0}::int = 0 OR refused = 1) AND question <> ''
          GROUP BY translate(btrim(question), ${UPPER}, ${LOWER}) ORDER BY n DESC, question LIMIT ${limitOf(opts.limit)}`);
      return found.map((q) => ({ question: q.question, count: Number(q.n) }));
    },

    /** Every correction of a deployment with how often it was served, most served first. */
    async corrections(deploymentId) {
      const found =
        await rows<ServedCorrectionDbRow>(sql`SELECT id, chat_log_id, question, answer, active, served_count, updated_at FROM corrections
          WHERE deployment_id = ${deploymentId} ORDER BY served_count DESC, updated_at DESC, question_norm, active, id`);
      return found.map(toServedCorrection);
    },
  };
}
