import { appError } from "../errors/index.ts";
import type { ChatLogFeedbackStore, Correction, CorrectionsStore, RatedTurn } from "../store/contract/index.ts";
import { normaliseQuestion } from "./normalise-question.ts";
import { VISITOR_LIMITS } from "./validate.ts";

/** One row of the owner's corrections screen: an answer rated 0 and the correction that applies, if any. */
export interface CorrectionItem {
  turn: RatedTurn;
  correction: Correction | null;
}

/** What the chat pipeline serves instead of an answer (free, no retrieval, no LLM call). */
export interface ServedCorrection {
  correctionId: number;
  answer: string;
  /** the rated chat log the correction was written for */
  chatLogId: number;
  /** the question as the owner corrected it */
  question: string;
}

/**
 * The corrections loop. Rules:
 * - A rating of 0 puts the turn on the open list; its latest rating counts, so a later 1 takes it off.
 * - `set` creates or replaces the correction of that chat log and makes it THE active correction for its
 *   normalised question; an older active correction of the same question is deactivated (newer supersedes).
 * - A later rating of 1 does not deactivate a correction: the owner's written answer stays in service until
 *   the owner removes it (`remove`) or writes a newer one for the same question.
 */
export function createCorrectionsService(deps: { corrections: CorrectionsStore; chatLogs: ChatLogFeedbackStore }) {
  const { corrections, chatLogs } = deps;

  const turnOrThrow = async (chatLogId: number, deploymentId?: string): Promise<RatedTurn> => {
    const turn = deploymentId === undefined ? await chatLogs.findById(chatLogId) : await chatLogs.findScoped(deploymentId, chatLogId);
    if (!turn) throw appError("not_found", { message: "No such chat log.", param: "chat_log_id" });
    return turn;
  };

  return {
    /** The open list of one deployment: answers whose latest rating is 0, newest first. */
    async list(deploymentId: string): Promise<CorrectionItem[]> {
      const items: CorrectionItem[] = [];
      for (const turn of await chatLogs.listUnhelpful(deploymentId)) {
        const correction =
          (await corrections.findForChatLog(turn.id)) ?? (await corrections.findActive(deploymentId, normaliseQuestion(turn.question)));
        items.push({ turn, correction });
      }
      return items;
    },

    /** Creates or replaces the correction for a chat log; with `deploymentId`, another deployment's log is not found. */
    async set(chatLogId: number, answer: string, opts: { deploymentId?: string } = {}): Promise<Correction> {
      const text = answer.trim();
      if (!text || text.length > VISITOR_LIMITS.answer) {
        throw appError("bad_request", { param: "answer", message: `The answer must be 1–${VISITOR_LIMITS.answer} characters.` });
      }
      const turn = await turnOrThrow(chatLogId, opts.deploymentId);
      const questionNorm = normaliseQuestion(turn.question);
      if (!questionNorm) throw appError("bad_request", { param: "chat_log_id", message: "This chat log has no question to correct." });
      return corrections.upsert({
        deploymentId: turn.deploymentId,
        chatLogId: turn.id,
        question: turn.question,
        questionNorm,
        answer: text,
      });
    },

    /** Takes a chat log's correction out of service; false when it had no active one. */
    async remove(chatLogId: number, opts: { deploymentId?: string } = {}): Promise<boolean> {
      const turn = await turnOrThrow(chatLogId, opts.deploymentId);
      return corrections.deactivate(turn.deploymentId, turn.id);
    },

    /**
     * Called by the chat pipeline before retrieval: the active correction whose normalised question equals
     * this one's, or null. Counts one serving (served_count + 1) when it returns a correction.
     */
    async findFor(deploymentId: string, question: string): Promise<ServedCorrection | null> {
      const norm = normaliseQuestion(question);
      if (!norm) return null;
      const c = await corrections.serve(deploymentId, norm);
      return c ? { correctionId: c.id, answer: c.answer, chatLogId: c.chatLogId, question: c.question } : null;
    },
    /** findFor without counting a serving: what the owner's own checks (test questions, content gaps) see. */
    async peek(deploymentId: string, question: string): Promise<ServedCorrection | null> {
      const norm = normaliseQuestion(question);
      const c = norm ? await corrections.findActive(deploymentId, norm) : null;
      return c ? { correctionId: c.id, answer: c.answer, chatLogId: c.chatLogId, question: c.question } : null;
    },
  };
}

export type CorrectionsService = ReturnType<typeof createCorrectionsService>;
