import { isAppError } from "../errors/index.ts";
import type { AnswerOutcome, Metrics } from "../metrics/metrics.ts";
import type { ChatLogsStore } from "../store/contract/index.ts";
import type { ChatService } from "./chat.service.ts";

/**
 * Counts answers by outcome as the chat service streams them: answered, refused, correction, or error (a
 * failure after the answer started, or a server-side failure before it; a client's 4xx is not an answer).
 */
export function observeChat(chat: ChatService, metrics: Metrics): ChatService {
  return {
    ...chat,
    async *answer(req, signal) {
      let outcome: AnswerOutcome = "answered";
      try {
        for await (const ev of chat.answer(req, signal)) {
          if (ev.type === "sources") outcome = ev.correctionId !== null ? "correction" : ev.refused ? "refused" : "answered";
          else if (ev.type === "error") metrics.answer("error");
          else if (ev.type === "done") metrics.answer(outcome);
          yield ev;
        }
      } catch (e) {
        if (!isAppError(e) || e.status >= 500) metrics.answer("error");
        throw e;
      }
    },
  };
}

/** Counts the tokens actually taken from balances, as each recorded turn's debit reports them (never more than the balance held). */
export function observeDebits(chatLogs: ChatLogsStore, metrics: Metrics): ChatLogsStore {
  return {
    ...chatLogs,
    async record(turn) {
      const recorded = await chatLogs.record(turn);
      if (recorded.debited > 0) metrics.debited(recorded.debited);
      return recorded;
    },
  };
}
