import type { Db } from "../db.ts";
import type { AccountsRepo } from "./accounts.sqlite.ts";
import type { ConversationsRepo } from "./conversations.sqlite.ts";

export interface NewTurn {
  deploymentId: string;
  accountId: number;
  conversationId: string;
  completionId: string;
  endpoint: string;
  question: string;
  searchQuery: string;
  answer: string;
  sources: string[];
  promptTokens: number;
  completionTokens: number;
  refused: boolean;
  correctionId: number | null;
  visitorEmail: string | null;
}

/** A recorded turn: its chat log id, the balance after its debit (null: nothing charged) and the tokens taken. */
export interface RecordedTurn {
  chatLogId: number;
  balance: number | null;
  /** what the debit actually took: the charge, or less when the balance ran out */
  debited: number;
}

export interface StoredTurn {
  id: number;
  question: string;
  searchQuery: string;
  answer: string;
  refused: boolean;
}

/**
 * Chat log writes and thread reads. A turn's conversation, log row and token debit are one IMMEDIATE
 * transaction: a turn is either recorded and charged, or neither.
 */
export function createChatLogsRepo(db: Db, deps: { accounts: AccountsRepo; conversations: ConversationsRepo }) {
  const insert = db.query<{ id: number }, (string | number | null)[]>(
    `INSERT INTO chat_logs (deployment_id, conversation_id, completion_id, endpoint, question, search_query, answer, sources,
       prompt_tokens, completion_tokens, refused, correction_id, visitor_email, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const thread = db.query<
    { id: number; question: string; search_query: string; answer: string; refused: number },
    [string, string, number]
  >(
    `SELECT id, question, search_query, answer, refused FROM chat_logs WHERE deployment_id = ? AND conversation_id = ?
      ORDER BY id DESC LIMIT ?`,
  );
  return {
    /** Records the turn and debits its tokens; returns the chat log id, the balance afterwards and what was taken. */
    record(t: NewTurn): RecordedTurn {
      return db
        .transaction(() => {
          const at = Date.now();
          deps.conversations.touch(t.deploymentId, t.conversationId, at);
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
          ) as { id: number };
          const charge = t.promptTokens + t.completionTokens;
          if (charge <= 0) return { chatLogId: row.id, balance: null, debited: 0 };
          const before = deps.accounts.findById(t.accountId)?.tokens ?? 0;
          const balance = deps.accounts.debit(t.accountId, charge, row.id);
          return { chatLogId: row.id, balance, debited: before - balance };
        })
        .immediate();
    },
    /** The last `limit` turns of a thread, oldest first. */
    thread(deploymentId: string, conversationId: string, limit: number): StoredTurn[] {
      return thread
        .all(deploymentId, conversationId, limit)
        .reverse()
        .map((r) => ({ id: r.id, question: r.question, searchQuery: r.search_query, answer: r.answer, refused: r.refused === 1 }));
    },
  };
}

export type ChatLogsRepo = ReturnType<typeof createChatLogsRepo>;
