import { type ChatLogFeedbackStore, type RatedTurnRow, toRatedTurn } from "../../contract/chat-logs.contract.ts";
import type { Db } from "../db.ts";

const COLS = "id, deployment_id, conversation_id, question, answer, sources, refused, rating, rated_at, created_at";

/** Every query but findById takes the deployment id (chat-logs.contract.ts). */
export function createSqliteChatLogFeedbackRepo(db: Db): ChatLogFeedbackStore {
  const one = (where: string, ...args: (string | number)[]) => {
    const r = db.query<RatedTurnRow, (string | number)[]>(`SELECT ${COLS} FROM chat_logs WHERE ${where}`).get(...args);
    return r ? toRatedTurn(r) : null;
  };
  return {
    findById: async (chatLogId) => one("id = ?", chatLogId),
    findScoped: async (deploymentId, chatLogId) => one("id = ? AND deployment_id = ?", chatLogId, deploymentId),
    async rate(deploymentId, chatLogId, rating, at = Date.now()) {
      return (
        db.run("UPDATE chat_logs SET rating = ?, rated_at = ? WHERE id = ? AND deployment_id = ?", [rating, at, chatLogId, deploymentId])
          .changes > 0
      );
    },
    latestRefusal: async (deploymentId, conversationId, upToChatLogId) =>
      one(
        "deployment_id = ? AND conversation_id = ? AND refused = 1 AND id <= ? ORDER BY id DESC LIMIT 1",
        deploymentId,
        conversationId,
        upToChatLogId ?? Number.MAX_SAFE_INTEGER,
      ),
    async listUnhelpful(deploymentId, limit = 1000) {
      return db
        .query<RatedTurnRow, [string, number]>(
          `SELECT ${COLS} FROM chat_logs WHERE deployment_id = ? AND rating = 0 ORDER BY rated_at DESC, id DESC LIMIT ?`,
        )
        .all(deploymentId, limit)
        .map(toRatedTurn);
    },
  };
}
