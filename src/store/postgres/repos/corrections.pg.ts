import type { SQL } from "bun";
import { type CorrectionRow, type CorrectionsStore, toCorrection } from "../../contract/corrections.contract.ts";
import { first, text } from "./values.ts";

/**
 * Corrections on PostgreSQL. Lookups compare md5(question_norm) first: the lookup and unique indexes are on the
 * hash (migration 002), since a long question would not fit a btree entry.
 */
export function createPgCorrectionsRepo(sql: SQL): CorrectionsStore {
  const one = async (q: Promise<unknown>) => {
    const r = await first<CorrectionRow>(q);
    return r ? toCorrection(r) : null;
  };
  return {
    findForChatLog: (chatLogId) => one(sql`SELECT * FROM corrections WHERE chat_log_id = ${chatLogId}`),
    findActive: (deploymentId, questionNorm) =>
      one(
        sql`SELECT * FROM corrections WHERE deployment_id = ${deploymentId} AND md5(question_norm) = md5(${text(questionNorm)}) AND question_norm = ${text(questionNorm)} AND active = 1`,
      ),
    /**
     * Writers of one question queue on an advisory lock (as SQLite's IMMEDIATE transactions queue), so two nodes
     * correcting the same question at once end with the later one active instead of a unique violation.
     */
    upsert(input, at = Date.now()) {
      return sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(hashtext(${text(`correction:${input.deploymentId}:${input.questionNorm}`)}))`;
        await tx`UPDATE corrections SET active = 0, updated_at = ${at}::bigint
          WHERE deployment_id = ${input.deploymentId} AND md5(question_norm) = md5(${text(input.questionNorm)}) AND question_norm = ${text(input.questionNorm)} AND active = 1 AND chat_log_id <> ${input.chatLogId}`;
        const row =
          await first<CorrectionRow>(tx`INSERT INTO corrections (deployment_id, chat_log_id, question, question_norm, answer, active, created_at, updated_at)
          VALUES (${input.deploymentId}, ${input.chatLogId}, ${text(input.question)}, ${text(input.questionNorm)}, ${text(input.answer)}, 1, ${at}::bigint, ${at}::bigint)
          ON CONFLICT (chat_log_id) DO UPDATE SET answer = excluded.answer, question = excluded.question,
            question_norm = excluded.question_norm, active = 1, updated_at = excluded.updated_at
          RETURNING *`);
        if (!row) throw new Error("correction upsert returned no row");
        return toCorrection(row);
      });
    },
    serve: (deploymentId, questionNorm) =>
      one(sql`UPDATE corrections SET served_count = served_count + 1
        WHERE id = (SELECT id FROM corrections WHERE deployment_id = ${deploymentId} AND md5(question_norm) = md5(${text(questionNorm)}) AND question_norm = ${text(questionNorm)} AND active = 1 LIMIT 1)
          AND active = 1
        RETURNING *`),
    async deactivate(deploymentId, chatLogId, at = Date.now()) {
      const r = await sql`UPDATE corrections SET active = 0, updated_at = ${at}::bigint
        WHERE deployment_id = ${deploymentId} AND chat_log_id = ${chatLogId} AND active = 1`;
      return r.count > 0;
    },
  };
}
