import type { SQL } from "bun";
import { parseSources } from "../../sqlite/repos/chat-log-feedback.sqlite.ts";
import type { OwnerChatLog } from "../../sqlite/repos/owner-chat-logs.sqlite.ts";
import type { OwnerChatLogsStore } from "../../contract/store.contract.ts";
import { first, flag, limitOf, num, numOrNull, type Raw, rating } from "./values.ts";

const toLog = (r: Raw): OwnerChatLog => ({
  id: num(r.id),
  conversationId: r.conversation_id as string,
  question: r.question as string,
  answer: r.answer as string,
  sources: parseSources(r.sources as string),
  refused: flag(r.refused),
  rating: rating(r.rating),
  correctionId: numOrNull(r.correction_id),
  tokens: num(r.tokens),
  visitorEmail: (r.visitor_email as string | null) ?? null,
  createdAt: num(r.created_at),
});

/** The PostgreSQL twin of repos/owner-chat-logs.repo.ts: every query takes the deployment id. */
export function createPgOwnerChatLogsRepo(sql: SQL): OwnerChatLogsStore {
  return {
    async list(deploymentId: string, opts: { limit: number; beforeId?: number }): Promise<OwnerChatLog[]> {
      const rows = (await sql`SELECT id, conversation_id, question, answer, sources, refused, rating, correction_id,
          prompt_tokens + completion_tokens AS tokens, visitor_email, created_at
        FROM chat_logs WHERE deployment_id = ${deploymentId} AND id < ${opts.beforeId ?? Number.MAX_SAFE_INTEGER}::bigint
        ORDER BY id DESC LIMIT ${limitOf(opts.limit)}`) as Raw[];
      return rows.map(toLog);
    },
    async find(deploymentId: string, id: number): Promise<OwnerChatLog | null> {
      const r = await first(sql`SELECT id, conversation_id, question, answer, sources, refused, rating, correction_id,
          prompt_tokens + completion_tokens AS tokens, visitor_email, created_at
        FROM chat_logs WHERE id = ${id} AND deployment_id = ${deploymentId}`);
      return r ? toLog(r) : null;
    },
  };
}
