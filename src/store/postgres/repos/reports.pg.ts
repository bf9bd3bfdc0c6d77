import type { SQL } from "bun";
import type { ChatDayRow, ReportsStore, ServedCorrectionDbRow } from "../../contract/reports.contract.ts";
import { addRollups, mergeDays, toServedCorrection } from "../../contract/reports.contract.ts";
import { CHAT_DAY_COUNTS, ROLLUP_DAY_SUMS } from "../../shared/reports-sql.ts";
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
      const args = [r.offsetMinutes * 60, r.deploymentId, r.fromMs, r.toMs];
      const day = (ms: string) => `to_char(to_timestamp(${ms} / 1000 + $1::bigint) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day`;
      const inRange = (ms: string) => `deployment_id = $2 AND ${ms} >= $3::bigint AND ${ms} < $4::bigint`;
      const [chat, rolled, leads] = (await Promise.all([
        sql.unsafe(
          `SELECT ${day("created_at")}, ${CHAT_DAY_COUNTS} FROM chat_logs WHERE ${inRange("created_at")} AND rolled_up = 0 GROUP BY 1`,
          args,
        ),
        // what the retention purge and erasures counted before removing the turns
        sql.unsafe(`SELECT ${day("bucket")}, ${ROLLUP_DAY_SUMS} FROM report_rollups WHERE ${inRange("bucket")} GROUP BY 1`, args),
        sql.unsafe(`SELECT ${day("created_at")}, COUNT(*) AS n FROM leads WHERE ${inRange("created_at")} GROUP BY 1`, args),
      ])) as [ChatDayRow[], ChatDayRow[], { day: string; n: string }[]];
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
