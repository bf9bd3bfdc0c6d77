import { type OwnerChatLogRow, type OwnerChatLogsStore, toOwnerChatLog } from "../../contract/chat-logs.contract.ts";
import type { Db } from "../db.ts";

const COLS =
  "id, conversation_id, question, answer, sources, refused, rating, correction_id, prompt_tokens + completion_tokens AS tokens, visitor_email, created_at";

/** The owner's view of chat logs; every query takes the deployment id, so other deployments' logs are "not found". */
export function createSqliteOwnerChatLogsRepo(db: Db): OwnerChatLogsStore {
  return {
    async list(deploymentId, opts) {
      return db
        .query<OwnerChatLogRow, [string, number, number]>(
          `SELECT ${COLS} FROM chat_logs WHERE deployment_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
        )
        .all(deploymentId, opts.beforeId ?? Number.MAX_SAFE_INTEGER, opts.limit)
        .map(toOwnerChatLog);
    },
    async find(deploymentId, id) {
      const r = db
        .query<OwnerChatLogRow, [number, string]>(`SELECT ${COLS} FROM chat_logs WHERE id = ? AND deployment_id = ?`)
        .get(id, deploymentId);
      return r ? toOwnerChatLog(r) : null;
    },
  };
}
