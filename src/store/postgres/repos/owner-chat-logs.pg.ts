import type { SQL } from "bun";
import { type OwnerChatLogRow, type OwnerChatLogsStore, toOwnerChatLog } from "../../contract/chat-logs.contract.ts";
import { first, limitOf, rows } from "./values.ts";

/** The owner's view of chat logs on PostgreSQL: every query takes the deployment id. */
export function createPgOwnerChatLogsRepo(sql: SQL): OwnerChatLogsStore {
  return {
    async list(deploymentId, opts) {
      const found = await rows<OwnerChatLogRow>(sql`SELECT id, conversation_id, question, answer, sources, refused, rating, correction_id,
          prompt_tokens + completion_tokens AS tokens, visitor_email, created_at
        FROM chat_logs WHERE deployment_id = ${deploymentId} AND id < ${opts.beforeId ?? Number.MAX_SAFE_INTEGER}::bigint
        ORDER BY id DESC LIMIT ${limitOf(opts.limit)}`);
      return found.map(toOwnerChatLog);
    },
    async find(deploymentId, id) {
      const r = await first<OwnerChatLogRow>(sql`SELECT id, conversation_id, question, answer, sources, refused, rating, correction_id,
          prompt_tokens + completion_tokens AS tokens, visitor_email, created_at
        FROM chat_logs WHERE id = ${id} AND deployment_id = ${deploymentId}`);
      return r ? toOwnerChatLog(r) : null;
    },
  };
}
