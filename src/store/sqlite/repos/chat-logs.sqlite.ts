import { type ChatLogsStore, type StoredTurnRow, toStoredTurn } from "../../contract/chat-logs.contract.ts";
import type { Db } from "../db.ts";
import { accountById, debitAccount } from "./accounts.sqlite.ts";
import { touchConversation } from "./conversations.sqlite.ts";

/**
 * Chat log writes and thread reads. A turn's conversation, log row and token debit are one IMMEDIATE
 * transaction: a turn is either recorded and charged, or neither.
 */
export function createSqliteChatLogsRepo(db: Db): ChatLogsStore {
  const insert = db.query<{ id: number }, (string | number | null)[]>(
    `INSERT INTO chat_logs (deployment_id, conversation_id, completion_id, endpoint, question, search_query, answer, sources,
       prompt_tokens, completion_tokens, refused, correction_id, visitor_email, created_at, citations, weak)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const thread = db.query<StoredTurnRow, [string, string, number]>(
    `SELECT id, question, search_query, answer, refused FROM chat_logs WHERE deployment_id = ? AND conversation_id = ?
      ORDER BY id DESC LIMIT ?`,
  );
  return {
    async record(t) {
      return db
        .transaction(() => {
          const at = Date.now();
          touchConversation(db, t.deploymentId, t.conversationId, at);
          const row = insert.get(
            t.deploymentId,
            t.conversationId,
            t.completionId,
            t.endpoint,
            t.question,
            t.searchQuery,
            t.answer,
            JSON.stringify(t.sources),
            t.promptTokens,
            t.completionTokens,
            t.refused ? 1 : 0,
            t.correctionId,
            t.visitorEmail,
            at,
            JSON.stringify(t.citations ?? []),
            t.weak ? 1 : 0,
          ) as { id: number };
          if (t.reservationId) db.run("DELETE FROM token_reservations WHERE id = ?", [t.reservationId]);
          const charge = t.promptTokens + t.completionTokens;
          if (charge <= 0) return { chatLogId: row.id, balance: null, debited: 0 };
          const before = accountById(db, t.accountId)?.tokens ?? 0;
          const balance = debitAccount(db, t.accountId, charge, row.id);
          return { chatLogId: row.id, balance, debited: before - balance };
        })
        .immediate();
    },
    async thread(deploymentId, conversationId, limit) {
      return thread.all(deploymentId, conversationId, limit).reverse().map(toStoredTurn);
    },
  };
}
