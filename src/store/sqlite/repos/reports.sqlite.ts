import type { ChatDayRow, ReportRange, ReportsStore, ServedCorrectionDbRow } from "../../contract/reports.contract.ts";
import { addRollups, mergeDays, toServedCorrection } from "../../contract/reports.contract.ts";
import { CHAT_DAY_COUNTS, ROLLUP_DAY_SUMS } from "../../shared/reports-sql.ts";
import type { Db } from "../db.ts";

// SQLite's date() over epoch seconds shifted into the owner's time zone.
const DAY = "date(created_at / 1000 + ?, 'unixepoch')";

/** Read-only aggregations over chat_logs, leads and corrections for the owner's reports and screens. */
export function createSqliteReportsRepo(db: Db): ReportsStore {
  /** A query of one row per day of a report's range; it binds the zone shift (seconds), deployment, from and to. */
  const perDay = <R>(text: string) => {
    const q = db.query<R, [number, string, number, number]>(text);
    return (r: ReportRange) => q.all(r.offsetMinutes * 60, r.deploymentId, r.fromMs, r.toMs);
  };
  const chatDays = perDay<ChatDayRow>(
    `SELECT ${DAY} AS day, ${CHAT_DAY_COUNTS}
       FROM chat_logs WHERE deployment_id = ? AND created_at >= ? AND created_at < ? AND rolled_up = 0 GROUP BY day`,
  );
  // what the retention purge and erasures counted before removing the turns
  const rolledDays = perDay<ChatDayRow>(
    `SELECT date(bucket / 1000 + ?, 'unixepoch') AS day, ${ROLLUP_DAY_SUMS}
       FROM report_rollups WHERE deployment_id = ? AND bucket >= ? AND bucket < ? GROUP BY day`,
  );
  const leadDays = perDay<{ day: string; n: number }>(
    `SELECT ${DAY} AS day, COUNT(*) AS n FROM leads WHERE deployment_id = ? AND created_at >= ? AND created_at < ? GROUP BY day`,
  );
  return {
    async days(r) {
      return mergeDays(addRollups(chatDays(r), rolledDays(r)), leadDays(r));
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
