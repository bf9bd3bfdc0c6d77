import { type CorrectionRow, type CorrectionsStore, toCorrection } from "../../contract/corrections.contract.ts";
import type { Db } from "../db.ts";

export function createSqliteCorrectionsRepo(db: Db): CorrectionsStore {
  const serve = db.query<CorrectionRow, [string, string]>(
    `UPDATE corrections SET served_count = served_count + 1
      WHERE id = (SELECT id FROM corrections WHERE deployment_id = ? AND question_norm = ? AND active = 1 LIMIT 1)
      RETURNING *`,
  );
  const maybe = (r: CorrectionRow | null) => (r ? toCorrection(r) : null);
  return {
    findForChatLog: async (chatLogId) =>
      maybe(db.query<CorrectionRow, [number]>("SELECT * FROM corrections WHERE chat_log_id = ?").get(chatLogId)),
    findActive: async (deploymentId, questionNorm) =>
      maybe(
        db
          .query<CorrectionRow, [string, string]>("SELECT * FROM corrections WHERE deployment_id = ? AND question_norm = ? AND active = 1")
          .get(deploymentId, questionNorm),
      ),
    // an IMMEDIATE transaction: writers of one question queue, and the later one ends active
    async upsert(input, at = Date.now()) {
      return db
        .transaction(() => {
          db.run(
            "UPDATE corrections SET active = 0, updated_at = ? WHERE deployment_id = ? AND question_norm = ? AND active = 1 AND chat_log_id <> ?",
            [at, input.deploymentId, input.questionNorm, input.chatLogId],
          );
          const row = db
            .query<CorrectionRow, [string, number, string, string, string, number, number]>(
              `INSERT INTO corrections (deployment_id, chat_log_id, question, question_norm, answer, active, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, 1, ?, ?)
             ON CONFLICT (chat_log_id) DO UPDATE SET answer = excluded.answer, question = excluded.question,
               question_norm = excluded.question_norm, active = 1, updated_at = excluded.updated_at
             RETURNING *`,
            )
            .get(input.deploymentId, input.chatLogId, input.question, input.questionNorm, input.answer, at, at) as CorrectionRow;
          return toCorrection(row);
        })
        .immediate();
    },
    serve: async (deploymentId, questionNorm) => maybe(serve.get(deploymentId, questionNorm)),
    async deactivate(deploymentId, chatLogId, at = Date.now()) {
      return (
        db.run("UPDATE corrections SET active = 0, updated_at = ? WHERE deployment_id = ? AND chat_log_id = ? AND active = 1", [
          at,
          deploymentId,
          chatLogId,
        ]).changes > 0
      );
    },
  };
}
