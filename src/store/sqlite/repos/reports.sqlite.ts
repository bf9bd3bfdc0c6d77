import type { ChatDayRow, ReportsStore, ServedCorrectionDbRow } from "../../contract/reports.contract.ts";
import { addRollups, mergeDays, toServedCorrection } from "../../contract/reports.contract.ts";
import type { Db } from "../db.ts";

// SQLite's date() over epoch seconds shifted into the owner's time zone.
const DAY = "date(created_at / 1000 + ?, 'unixepoch')";

/** Read-only aggregations over chat_logs, leads and corrections for the owner's reports and screens. */
export function createSqliteReportsRepo(db: Db): ReportsStore {
  return {
    async days(r) {
      const shift = r.offsetMinutes * 60;
      const chat = db
        .query<ChatDayRow, [number, string, number, number]>(
          `SELECT ${DAY} AS day, COUNT(*) AS questions,
                  COUNT(CASE WHEN refused = 0 THEN 1 END) AS answers, COUNT(CASE WHEN refused = 1 THEN 1 END) AS refusals,
                  SUM(prompt_tokens + completion_tokens) AS tokens,
                  COUNT(CASE WHEN rating = 1 THEN 1 END) AS rated_up, COUNT(CASE WHEN rating = 0 THEN 1 END) AS rated_down,
                  COUNT(correction_id) AS corrections_served
             FROM chat_logs WHERE deployment_id = ? AND created_at >= ? AND created_at < ? AND rolled_up = 0
            GROUP BY day`,
        )
        .all(shift, r.deploymentId, r.fromMs, r.toMs);
      // what the retention purge and erasures counted before removing the turns
      const rolled = db
        .query<ChatDayRow, [number, string, number, number]>(
          `SELECT date(bucket / 1000 + ?, 'unixepoch') AS day, SUM(questions) AS questions, SUM(answers) AS answers,
                  SUM(refusals) AS refusals, SUM(tokens) AS tokens, SUM(rated_up) AS rated_up, SUM(rated_down) AS rated_down,
                  SUM(corrections_served) AS corrections_served
             FROM report_rollups WHERE deployment_id = ? AND bucket >= ? AND bucket < ? GROUP BY day`,
        )
        .all(shift, r.deploymentId, r.fromMs, r.toMs);
      const leads = db
        .query<{ day: string; n: number }, [number, string, number, number]>(
          `SELECT ${DAY} AS day, COUNT(*) AS n FROM leads WHERE deployment_id = ? AND created_at >= ? AND created_at < ? GROUP BY day`,
        )
        .all(shift, r.deploymentId, r.fromMs, r.toMs);
      return mergeDays(addRollups(chat, rolled), leads);
    },
    async topQuestions(r, opts) {
      return db
        .query<{ question: string; n: number }, [string, number, number, number, number]>(
          `SELECT MIN(question) AS question, COUNT(*) AS n FROM chat_logs
            WHERE deployment_id = ? AND created_at >= ? AND created_at < ? AND (? = 0 OR refused = 1) AND question <> ''
            GROUP BY lower(trim(question)) ORDER BY n DESC, question LIMIT ?`,
        )
        .all(r.deploymentId, r.fromMs, r.toMs, opts.refusedOnly ? 1 : 0, opts.limit)
        .map((q) => ({ question: q.question, count: q.n }));
    },
    // ties in the order of the normalised question (the order the lookup index gave them before this was spelled out)
    async corrections(deploymentId) {
      return db
        .query<ServedCorrectionDbRow, [string]>(
          "SELECT id, chat_log_id, question, answer, active, served_count, updated_at FROM corrections WHERE deployment_id = ? ORDER BY served_count DESC, updated_at DESC, question_norm, active, id",
        )
        .all(deploymentId)
        .map(toServedCorrection);
    },
  };
}
