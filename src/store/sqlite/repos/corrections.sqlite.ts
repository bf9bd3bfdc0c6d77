import type { Db } from "../db.ts";

export interface Correction {
  id: number;
  deploymentId: string;
  chatLogId: number;
  question: string;
  questionNorm: string;
  answer: string;
  active: boolean;
  servedCount: number;
  createdAt: number;
  updatedAt: number;
}

interface CorrectionRow {
  id: number;
  deployment_id: string;
  chat_log_id: number;
  question: string;
  question_norm: string;
  answer: string;
  active: number;
  served_count: number;
  created_at: number;
  updated_at: number;
}

const toCorrection = (r: CorrectionRow): Correction => ({
  id: r.id,
  deploymentId: r.deployment_id,
  chatLogId: r.chat_log_id,
  question: r.question,
  questionNorm: r.question_norm,
  answer: r.answer,
  active: r.active === 1,
  servedCount: r.served_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function createCorrectionsRepo(db: Db) {
  const serve = db.query<CorrectionRow, [string, string]>(
    `UPDATE corrections SET served_count = served_count + 1
      WHERE id = (SELECT id FROM corrections WHERE deployment_id = ? AND question_norm = ? AND active = 1 LIMIT 1)
      RETURNING *`,
  );
  return {
    findForChatLog(chatLogId: number): Correction | null {
      const r = db.query<CorrectionRow, [number]>("SELECT * FROM corrections WHERE chat_log_id = ?").get(chatLogId);
      return r ? toCorrection(r) : null;
    },
    findActive(deploymentId: string, questionNorm: string): Correction | null {
      const r = db
        .query<CorrectionRow, [string, string]>("SELECT * FROM corrections WHERE deployment_id = ? AND question_norm = ? AND active = 1")
        .get(deploymentId, questionNorm);
      return r ? toCorrection(r) : null;
    },
    /**
     * Creates or replaces the correction of one chat log and makes it the active one for its normalised
     * question: any other active correction of the same question is deactivated in the same transaction.
     */
    upsert(
      input: { deploymentId: string; chatLogId: number; question: string; questionNorm: string; answer: string },
      at = Date.now(),
    ): Correction {
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
    /** Takes the active correction for a normalised question and counts one serving, atomically. */
    serve(deploymentId: string, questionNorm: string): Correction | null {
      const r = serve.get(deploymentId, questionNorm);
      return r ? toCorrection(r) : null;
    },
    deactivate(deploymentId: string, chatLogId: number, at = Date.now()): boolean {
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

export type CorrectionsRepo = ReturnType<typeof createCorrectionsRepo>;
