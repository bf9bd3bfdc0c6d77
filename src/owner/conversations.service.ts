import { appError } from "../errors/index.ts";
import type { ChatLogFilter, ConversationLogsStore, ConversationTurn, LeadsStore } from "../store/contract/index.ts";
import { parseDay } from "./reports.service.ts";

const DAY_MS = 86_400_000;

export interface ConversationQuery {
  refused?: boolean;
  ratedDown?: boolean;
  handedOff?: boolean;
  /** inclusive local days YYYY-MM-DD, with the owner's UTC offset in minutes */
  from?: string;
  to?: string;
  tzOffset?: number;
  text?: string;
  limit?: number;
  before?: number;
}

/** The owner's chat logs: conversations filtered by what happened in them, and one conversation turn by turn. */
export function createConversationsService(deps: { logs: ConversationLogsStore; leads: LeadsStore }) {
  return {
    async list(deploymentId: string, q: ConversationQuery) {
      const shift = (q.tzOffset ?? 0) * 60_000;
      const limit = q.limit ?? 50;
      const f: ChatLogFilter = {
        refused: q.refused,
        ratedDown: q.ratedDown,
        handedOff: q.handedOff,
        fromMs: q.from ? parseDay(q.from, "from") - shift : undefined,
        toMs: q.to ? parseDay(q.to, "to") + DAY_MS - shift : undefined,
        text: q.text?.trim() || undefined,
        // one more than asked tells whether an older page exists
        limit: limit + 1,
        beforeId: q.before,
      };
      if (f.fromMs !== undefined && f.toMs !== undefined && f.toMs <= f.fromMs)
        throw appError("bad_request", { param: "to", message: "to must not be before from." });
      const rows = await deps.logs.conversations(deploymentId, f);
      const data = rows.slice(0, limit);
      return { data, nextBefore: rows.length > limit ? (data.at(-1)?.lastId ?? null) : null };
    },
    /** Every turn of a conversation with the leads left in it; a conversation of another deployment is not found. */
    async get(
      deploymentId: string,
      conversationId: string,
    ): Promise<{ turns: ConversationTurn[]; leads: Awaited<ReturnType<LeadsStore["list"]>> }> {
      const turns = await deps.logs.conversation(deploymentId, conversationId);
      if (!turns.length) throw appError("not_found", { message: "No such conversation.", param: "conversation_id" });
      const leads = (await deps.leads.list(deploymentId, { limit: 1000 })).filter(
        (l) => l.conversationId === conversationId || turns.some((t) => t.id === l.chatLogId),
      );
      return { turns, leads };
    },
    async turnOrThrow(deploymentId: string, chatLogId: number): Promise<ConversationTurn> {
      const t = await deps.logs.turn(deploymentId, chatLogId);
      if (!t) throw appError("not_found", { message: "No such chat log.", param: "chat_log_id" });
      return t;
    },
  };
}

export type ConversationsService = ReturnType<typeof createConversationsService>;
