import type { SQL } from "bun";
import type { Correction } from "../../sqlite/repos/corrections.sqlite.ts";
import type { CorrectionsStore } from "../../contract/store.contract.ts";
import { first, flag, num, type Raw, text } from "./values.ts";

const toCorrection = (r: Raw): Correction => ({
  id: num(r.id),
  deploymentId: r.deployment_id as string,
  chatLogId: num(r.chat_log_id),
  question: r.question as string,
  questionNorm: r.question_norm as string,
  answer: r.answer as string,
  active: flag(r.active),
  servedCount: num(r.served_count),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
});

/** The PostgreSQL twin of repos/corrections.repo.ts. */
export function createPgCorrectionsRepo(sql: SQL): CorrectionsStore {
  return {
    async findForChatLog(chatLogId: number): Promise<Correction | null> {
      const r = await first(sql`SELECT * FROM corrections WHERE chat_log_id = ${chatLogId}`);
      return r ? toCorrection(r) : null;
    },
    async findActive(deploymentId: string, questionNorm: string): Promise<Correction | null> {
      const r = await first(
        sql`SELECT * FROM corrections WHERE deployment_id = ${deploymentId} AND md5(question_norm) = md5(${text(questionNorm)}) AND question_norm = ${text(questionNorm)} AND active = 1`,
      );
      return r ? toCorrection(r) : null;
    },
    /**
     * Creates or replaces the correction of one chat log and makes it the active one for its normalised question:
     * any other active correction of the same question is deactivated in the same transaction. Writers of one
     * question queue on an advisory lock (as SQLite's IMMEDIATE transactions queue), so two nodes correcting the
     * same question at once end with the later one active instead of a unique violation.
     */
    upsert(
      input: { deploymentId: string; chatLogId: number; question: string; questionNorm: string; answer: string },
      at = Date.now(),
    ): Promise<Correction> {
      return sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(hashtext(${text(`correction:${input.deploymentId}:${input.questionNorm}`)}))`;
        await tx`UPDATE corrections SET active = 0, updated_at = ${at}::bigint
          WHERE deployment_id = ${input.deploymentId} AND md5(question_norm) = md5(${text(input.questionNorm)}) AND question_norm = ${text(input.questionNorm)} AND active = 1 AND chat_log_id <> ${input.chatLogId}`;
        const [row] =
          (await tx`INSERT INTO corrections (deployment_id, chat_log_id, question, question_norm, answer, active, created_at, updated_at)
          VALUES (${input.deploymentId}, ${input.chatLogId}, ${text(input.question)}, ${text(input.questionNorm)}, ${text(input.answer)}, 1, ${at}::bigint, ${at}::bigint)
          ON CONFLICT (chat_log_id) DO UPDATE SET answer = excluded.answer, question = excluded.question,
            question_norm = excluded.question_norm, active = 1, updated_at = excluded.updated_at
          RETURNING *`) as Raw[];
        return toCorrection(row as Raw);
      }) as Promise<Correction>;
    },
    /** Takes the active correction for a normalised question and counts one serving, atomically. */
    async serve(deploymentId: string, questionNorm: string): Promise<Correction | null> {
      const r = await first(sql`UPDATE corrections SET served_count = served_count + 1
        WHERE id = (SELECT id FROM corrections WHERE deployment_id = ${deploymentId} AND md5(question_norm) = md5(${text(questionNorm)}) AND question_norm = ${text(questionNorm)} AND active = 1 LIMIT 1)
          AND active = 1
        RETURNING *`);
      return r ? toCorrection(r) : null;
    },
    async deactivate(deploymentId: string, chatLogId: number, at = Date.now()): Promise<boolean> {
      const r = await sql`UPDATE corrections SET active = 0, updated_at = ${at}::bigint
        WHERE deployment_id = ${deploymentId} AND chat_log_id = ${chatLogId} AND active = 1`;
      return r.count > 0;
    },
  };
}
