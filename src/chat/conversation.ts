import type { ChatLogsStore, ConversationsStore } from "../store/contract/index.ts";
import type { ChatMessageIn } from "./chat.types.ts";
import { COMPLETION_PREFIX, CONVERSATION_PREFIX, mintConversationId, scopedConversationId } from "./chat-ids.ts";

export interface ThreadTurn {
  question: string;
  answer: string;
  /** the standalone query searched for this turn, when the server stored it */
  searchQuery?: string;
}

export interface Thread {
  conversationId: string;
  history: ThreadTurn[];
}

/** Pairs style-A messages into turns; `system` messages are dropped (the persona governs). */
export function turnsFromMessages(messages: ChatMessageIn[]): ThreadTurn[] {
  const turns: ThreadTurn[] = [];
  for (const m of messages) {
    if (m.role === "user") turns.push({ question: m.content, answer: "" });
    else if (m.role === "assistant") {
      const last = turns.at(-1);
      if (last && last.answer === "") last.answer = m.content;
      else turns.push({ question: "", answer: m.content });
    }
  }
  return turns.filter((t) => t.question.trim() !== "" || t.answer.trim() !== "");
}

/**
 * The conversation rules:
 * - a `chatcmpl-` id passed as conversation_id starts a new, empty thread;
 * - a conv- id continues that thread only within the same deployment; an unknown one (or another
 *   deployment's) starts a new thread under a fresh id, so nothing reveals whether it exists elsewhere;
 * - any other client-chosen id, or `user` when conversation_id is absent, maps to a stable scoped thread;
 * - with none of these a conv- id is minted;
 * - when the request carries `messages` history, that history wins and the stored thread is not read.
 */
export async function resolveThread(
  deps: { conversations: ConversationsStore; chatLogs: ChatLogsStore },
  input: { deploymentId: string; conversationId?: string; user?: string; messages: ChatMessageIn[]; maxTurns: number },
): Promise<Thread> {
  const requested = input.conversationId?.trim() || undefined;
  const user = input.user?.trim() || undefined;
  let id: string;
  if (requested?.startsWith(COMPLETION_PREFIX)) id = mintConversationId();
  else if (requested?.startsWith(CONVERSATION_PREFIX))
    id = (await deps.conversations.exists(input.deploymentId, requested)) ? requested : mintConversationId();
  else if (requested) id = scopedConversationId(input.deploymentId, "client", requested);
  else if (user) id = scopedConversationId(input.deploymentId, "user", user);
  else id = mintConversationId();

  const fromRequest = turnsFromMessages(input.messages);
  if (fromRequest.length > 0) return { conversationId: id, history: fromRequest.slice(-input.maxTurns) };
  const stored = await deps.chatLogs.thread(input.deploymentId, id, input.maxTurns);
  return { conversationId: id, history: stored.map((t) => ({ question: t.question, answer: t.answer, searchQuery: t.searchQuery })) };
}
