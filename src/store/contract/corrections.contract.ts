import { type FlagCell, flag, type IntCell, num } from "./row-values.ts";

/** An owner's answer to a question visitors asked, served instead of a generated one. */
export interface Correction {
  id: number;
  deploymentId: string;
  chatLogId: number;
  question: string;
  /** the question normalised (visitor/normalise-question.ts): what lookups compare */
  questionNorm: string;
  answer: string;
  active: boolean;
  servedCount: number;
  createdAt: number;
  updatedAt: number;
}

export interface CorrectionRow {
  id: IntCell;
  deployment_id: string;
  chat_log_id: IntCell;
  question: string;
  question_norm: string;
  answer: string;
  active: FlagCell;
  served_count: IntCell;
  created_at: IntCell;
  updated_at: IntCell;
}

export const toCorrection = (r: CorrectionRow): Correction => ({
  id: num(r.id),
  deploymentId: r.deployment_id,
  chatLogId: num(r.chat_log_id),
  question: r.question,
  questionNorm: r.question_norm,
  answer: r.answer,
  active: flag(r.active),
  servedCount: num(r.served_count),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
});

export interface CorrectionsStore {
  findForChatLog(chatLogId: number): Promise<Correction | null>;
  findActive(deploymentId: string, questionNorm: string): Promise<Correction | null>;
  /**
   * Creates or replaces the correction of one chat log and makes it the active one for its normalised question:
   * any other active correction of the same question is deactivated in the same transaction (writers of one
   * question queue, so two nodes correcting it at once end with the later one active).
   */
  upsert(
    input: { deploymentId: string; chatLogId: number; question: string; questionNorm: string; answer: string },
    at?: number,
  ): Promise<Correction>;
  /** Takes the active correction for a normalised question and counts one serving, atomically. */
  serve(deploymentId: string, questionNorm: string): Promise<Correction | null>;
  /** Whether an active correction of that chat log was deactivated. */
  deactivate(deploymentId: string, chatLogId: number, at?: number): Promise<boolean>;
}
