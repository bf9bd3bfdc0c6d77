import type { Db } from "../db.ts";

/** The parts of a chat log that visitor feedback, handoff and the corrections screen read. */
export interface RatedTurn {
  id: number;
  deploymentId: string;
  conversationId: string;
  question: string;
  answer: string;
  sources: string[];
  refused: boolean;
  rating: 0 | 1 | null;
  ratedAt: number | null;
  createdAt: number;
}

interface TurnRow {
  id: number;
  deployment_id: string;
  conversation_id: string;
  question: string;
  answer: string;
  sources: string;
  refused: number;
  rating: 0 | 1 | null;
  rated_at: number | null;
  created_at: number;
}

const COLS = "id, deployment_id, conversation_id, question, answer, sources, refused, rating, rated_at, created_at";

/** chat_logs.sources is a JSON array of document names; anything else reads as no sources. */
export const parseSources = (raw: string): string[] => {
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
  } catch {
    return [];
  }
};

const toTurn = (r: TurnRow): RatedTurn => ({
  id: r.id,
  deploymentId: r.deployment_id,
  conversationId: r.conversation_id,
  question: r.question,
  answer: r.answer,
  sources: parseSources(r.sources),
  refused: r.refused === 1,
  rating: r.rating,
  ratedAt: r.rated_at,
  createdAt: r.created_at,
});

/**
 * Visitor-side reads and the rating write on `chat_logs`. Every query takes the deployment id, so one
 * deployment's key can never see or touch another's turns: those are simply "not found".
 */
export function createChatLogFeedbackRepo(db: Db) {
  return {
    /** Unscoped: for owner tools that address a chat log by its id alone (the CLI runs as the operator). */
    findById(chatLogId: number): RatedTurn | null {
      const r = db.query<TurnRow, [number]>(`SELECT ${COLS} FROM chat_logs WHERE id = ?`).get(chatLogId);
      return r ? toTurn(r) : null;
    },
    findScoped(deploymentId: string, chatLogId: number): RatedTurn | null {
      const r = db
        .query<TurnRow, [number, string]>(`SELECT ${COLS} FROM chat_logs WHERE id = ? AND deployment_id = ?`)
        .get(chatLogId, deploymentId);
      return r ? toTurn(r) : null;
    },
    /** Stores the latest rating; false when the chat log is not this deployment's. */
    rate(deploymentId: string, chatLogId: number, rating: 0 | 1, at = Date.now()): boolean {
      return (
        db.run("UPDATE chat_logs SET rating = ?, rated_at = ? WHERE id = ? AND deployment_id = ?", [rating, at, chatLogId, deploymentId])
          .changes > 0
      );
    },
    /** The latest refused turn of the conversation, optionally no later than `upToChatLogId`. */
    latestRefusal(deploymentId: string, conversationId: string, upToChatLogId?: number): RatedTurn | null {
      const r = db
        .query<TurnRow, [string, string, number]>(
          `SELECT ${COLS} FROM chat_logs WHERE deployment_id = ? AND conversation_id = ? AND refused = 1 AND id <= ? ORDER BY id DESC LIMIT 1`,
        )
        .get(deploymentId, conversationId, upToChatLogId ?? Number.MAX_SAFE_INTEGER);
      return r ? toTurn(r) : null;
    },
    /** Answers whose latest rating is 0, newest first. */
    listUnhelpful(deploymentId: string, limit = 1000): RatedTurn[] {
      return db
        .query<TurnRow, [string, number]>(
          `SELECT ${COLS} FROM chat_logs WHERE deployment_id = ? AND rating = 0 ORDER BY rated_at DESC, id DESC LIMIT ?`,
        )
        .all(deploymentId, limit)
        .map(toTurn);
    },
  };
}

export type ChatLogFeedbackRepo = ReturnType<typeof createChatLogFeedbackRepo>;
