import type { SQL } from "bun";
import { type ChatLogFeedbackStore, type RatedTurnRow, toRatedTurn } from "../../contract/chat-logs.contract.ts";
import { first, limitOf, rows, text } from "./values.ts";

/** Every visitor-side query takes the deployment id (chat-logs.contract.ts). */
export function createPgChatLogFeedbackRepo(sql: SQL): ChatLogFeedbackStore {
  const one = async (q: Promise<unknown>) => {
    const r = await first<RatedTurnRow>(q);
    return r ? toRatedTurn(r) : null;
  };
  return {
    findById: (chatLogId) =>
      one(sql`SELECT id, deployment_id, conversation_id, question, answer, sources, refused, rating, rated_at, created_at
        FROM chat_logs WHERE id = ${chatLogId}`),
    findScoped: (deploymentId, chatLogId) =>
      one(sql`SELECT id, deployment_id, conversation_id, question, answer, sources, refused, rating, rated_at, created_at
        FROM chat_logs WHERE id = ${chatLogId} AND deployment_id = ${deploymentId}`),
    async rate(deploymentId, chatLogId, value, at = Date.now()) {
      const r =
        await sql`UPDATE chat_logs SET rating = ${value}, rated_at = ${at}::bigint WHERE id = ${chatLogId} AND deployment_id = ${deploymentId}`;
      return r.count > 0;
    },
    latestRefusal: (deploymentId, conversationId, upToChatLogId) =>
      one(sql`SELECT id, deployment_id, conversation_id, question, answer, sources, refused, rating, rated_at, created_at
        FROM chat_logs WHERE deployment_id = ${deploymentId} AND conversation_id = ${text(conversationId)} AND refused = 1
          AND id <= ${upToChatLogId ?? Number.MAX_SAFE_INTEGER}::bigint
        ORDER BY id DESC LIMIT 1`),
    /** NULLS LAST: SQLite sorts a missing time last in DESC. */
    async listUnhelpful(deploymentId, limit = 1000) {
      const found =
        await rows<RatedTurnRow>(sql`SELECT id, deployment_id, conversation_id, question, answer, sources, refused, rating, rated_at, created_at
        FROM chat_logs WHERE deployment_id = ${deploymentId} AND rating = 0
        ORDER BY rated_at DESC NULLS LAST, id DESC LIMIT ${limitOf(limit)}`);
      return found.map(toRatedTurn);
    },
  };
}
