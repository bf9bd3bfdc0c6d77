import type { SQL } from "bun";
import type { NewTurn, StoredTurn } from "../../repos/chat-logs.repo.ts";
import type { ChatLogsStore } from "../../store.ts";
import { debitAccount } from "./accounts.pg.ts";
import { touchConversation } from "./conversations.pg.ts";
import { flag, limitOf, num, type Raw, within } from "./values.ts";

/**
 * The PostgreSQL twin of repos/chat-logs.repo.ts. A turn's conversation, log row and token debit are ONE
 * transaction (the caller's when `tx` is given): a turn is either recorded and charged, or neither.
 */
export function createPgChatLogsRepo(sql: SQL): ChatLogsStore & {
  record(t: NewTurn, tx?: SQL): Promise<{ chatLogId: number; balance: number | null }>;
} {
  return {
    /** Records the turn and debits its tokens; returns the chat log id and the balance afterwards. */
    record(t: NewTurn, tx?: SQL): Promise<{ chatLogId: number; balance: number | null }> {
      return within(sql, tx, async (tx) => {
        const at = Date.now();
        await touchConversation(tx, t.deploymentId, t.conversationId, at);
        const [row] =
          (await tx`INSERT INTO chat_logs (deployment_id, conversation_id, completion_id, endpoint, question, search_query, answer,
            sources, prompt_tokens, completion_tokens, refused, correction_id, visitor_email, created_at)
          VALUES (${t.deploymentId}, ${t.conversationId}, ${t.completionId}, ${t.endpoint}, ${t.question}, ${t.searchQuery}, ${t.answer},
            ${JSON.stringify(t.sources)}, ${t.promptTokens}, ${t.completionTokens}, ${t.refused ? 1 : 0}, ${t.correctionId}::bigint,
            ${t.visitorEmail}, ${at}::bigint)
          RETURNING id`) as Raw[];
        const chatLogId = num(row?.id);
        const charge = t.promptTokens + t.completionTokens;
        const balance = charge > 0 ? await debitAccount(tx, t.accountId, charge, chatLogId) : null;
        return { chatLogId, balance };
      });
    },
    /** The last `limit` turns of a thread, oldest first. */
    async thread(deploymentId: string, conversationId: string, limit: number): Promise<StoredTurn[]> {
      const rows = (await sql`SELECT id, question, search_query, answer, refused FROM chat_logs
        WHERE deployment_id = ${deploymentId} AND conversation_id = ${conversationId} ORDER BY id DESC LIMIT ${limitOf(limit)}`) as Raw[];
      return rows.reverse().map((r) => ({
        id: num(r.id),
        question: r.question as string,
        searchQuery: r.search_query as string,
        answer: r.answer as string,
        refused: flag(r.refused),
      }));
    },
  };
}
