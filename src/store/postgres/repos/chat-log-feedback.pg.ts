import type { SQL } from "bun";
import { parseSources, type RatedTurn } from "../../sqlite/repos/chat-log-feedback.sqlite.ts";
import type { ChatLogFeedbackStore } from "../../contract/store.contract.ts";
import { first, flag, limitOf, num, numOrNull, type Raw, rating, text } from "./values.ts";

const toTurn = (r: Raw): RatedTurn => ({
  id: num(r.id),
  deploymentId: r.deployment_id as string,
  conversationId: r.conversation_id as string,
  question: r.question as string,
  answer: r.answer as string,
  sources: parseSources(r.sources as string),
  refused: flag(r.refused),
  rating: rating(r.rating),
  ratedAt: numOrNull(r.rated_at),
  createdAt: num(r.created_at),
});

/** The PostgreSQL twin of repos/chat-log-feedback.repo.ts: every visitor-side query takes the deployment id. */
export function createPgChatLogFeedbackRepo(sql: SQL): ChatLogFeedbackStore {
  return {
    /** Unscoped: for owner tools that address a chat log by its id alone (the CLI runs as the operator). */
    async findById(chatLogId: number): Promise<RatedTurn | null> {
      const r = await first(sql`SELECT id, deployment_id, conversation_id, question, answer, sources, refused, rating, rated_at, created_at
        FROM chat_logs WHERE id = ${chatLogId}`);
      return r ? toTurn(r) : null;
    },
    async findScoped(deploymentId: string, chatLogId: number): Promise<RatedTurn | null> {
      const r = await first(sql`SELECT id, deployment_id, conversation_id, question, answer, sources, refused, rating, rated_at, created_at
        FROM chat_logs WHERE id = ${chatLogId} AND deployment_id = ${deploymentId}`);
      return r ? toTurn(r) : null;
    },
    /** Stores the latest rating; false when the chat log is not this deployment's. */
    async rate(deploymentId: string, chatLogId: number, value: 0 | 1, at = Date.now()): Promise<boolean> {
      const r =
        await sql`UPDATE chat_logs SET rating = ${value}, rated_at = ${at}::bigint WHERE id = ${chatLogId} AND deployment_id = ${deploymentId}`;
      return r.count > 0;
    },
    /** The latest refused turn of the conversation, optionally no later than `upToChatLogId`. */
    async latestRefusal(deploymentId: string, conversationId: string, upToChatLogId?: number): Promise<RatedTurn | null> {
      const r = await first(sql`SELECT id, deployment_id, conversation_id, question, answer, sources, refused, rating, rated_at, created_at
        FROM chat_logs WHERE deployment_id = ${deploymentId} AND conversation_id = ${text(conversationId)} AND refused = 1
          AND id <= ${upToChatLogId ?? Number.MAX_SAFE_INTEGER}::bigint
        ORDER BY id DESC LIMIT 1`);
      return r ? toTurn(r) : null;
    },
    /** Answers whose latest rating is 0, newest first (NULLS LAST: SQLite sorts a missing time last in DESC). */
    async listUnhelpful(deploymentId: string, limit = 1000): Promise<RatedTurn[]> {
      const rows = (await sql`SELECT id, deployment_id, conversation_id, question, answer, sources, refused, rating, rated_at, created_at
        FROM chat_logs WHERE deployment_id = ${deploymentId} AND rating = 0
        ORDER BY rated_at DESC NULLS LAST, id DESC LIMIT ${limitOf(limit)}`) as Raw[];
      return rows.map(toTurn);
    },
  };
}
