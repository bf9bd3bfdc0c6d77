import type { ChatService } from "../chat/chat.service.ts";
import { collectAnswer } from "../chat/collect-answer.ts";
import { thresholdFor } from "../chat/ground-question.ts";
import { refusalText, visitorLanguage } from "../chat/refusal.ts";
import { appError } from "../errors/index.ts";
import { isGrounded } from "../rag/grounding-gate.ts";
import type { Retriever } from "../rag/retrieve.ts";
import type { Account, Deployment, NeighboursStore } from "../store/contract/index.ts";
import { citationView, parsePassageId, passageId } from "./mcp-views.ts";

/** Who is asking: the deployment behind the key (or the stdio process's deployment) and its owner's account. */
export interface McpCaller {
  deployment: Deployment;
  account: Account;
}

export interface McpDeps {
  chat: ChatService;
  retriever: Retriever;
  neighbours: NeighboursStore;
  settings: { topK: number; refusalThreshold: number; rerankThreshold?: number };
}

/** Usable once training has completed at least once, as for the chat endpoints. */
function ensureTrained(d: Deployment): void {
  if (d.trainingStatus !== "completed" && d.trainedAt === null) throw appError("not_trained");
}

/** The three tools' behaviour, apart from the protocol: each returns the structured content of its result. */
export function createMcpTools(deps: McpDeps) {
  const thresholds = (d: Deployment) => ({
    topK: deps.settings.topK,
    threshold: d.refusalThreshold ?? deps.settings.refusalThreshold,
    rerankThreshold: d.refusalThreshold ?? deps.settings.rerankThreshold,
  });
  return {
    /** Ranked passages for a query: retrieval only, free, like the search behind every answer. */
    async search(caller: McpCaller, input: { query: string; limit?: number }) {
      ensureTrained(caller.deployment);
      const query = input.query.trim();
      if (!query) throw appError("bad_request", { param: "query", message: "query must not be empty." });
      const r = await deps.retriever.retrieve({
        deploymentId: caller.deployment.id,
        query,
        topK: input.limit ?? 8,
        languages: caller.deployment.languages,
      });
      return {
        query,
        grounded: isGrounded(r.relevance, thresholdFor(thresholds(caller.deployment), r)),
        results: r.hits.map((h) => ({
          id: passageId(h.chunkId),
          title: h.source,
          text: h.text,
          score: Math.round(h.relevance * 10_000) / 10_000,
          citation: citationView(h),
        })),
      };
    },

    /** A passage with its neighbours in document order, within the caller's deployment only. */
    async fetch(caller: McpCaller, input: { id: string; neighbours?: number }) {
      ensureTrained(caller.deployment);
      const chunkId = parsePassageId(input.id.trim());
      const found = chunkId === null ? [] : await deps.neighbours.around(caller.deployment.id, chunkId, input.neighbours ?? 1);
      const target = found.find((p) => p.chunkId === chunkId);
      if (!target) throw appError("not_found", { param: "id", message: "No passage with this id in this assistant's documents." });
      return {
        id: passageId(target.chunkId),
        title: target.source,
        text: found.map((p) => p.text).join("\n\n"),
        citation: citationView(target),
        passages: found.map((p) => ({
          id: passageId(p.chunkId),
          text: p.text,
          citation: citationView(p),
          requested: p.chunkId === target.chunkId,
        })),
      };
    },

    /**
     * The chat pipeline itself (corrections, follow-ups, the grounding gate, the model, the chat log and the
     * debit): an answer with its citations, or the refusal, which costs nothing.
     */
    async ask(caller: McpCaller, input: { question: string; conversation_id?: string }, signal: AbortSignal) {
      const { deployment, account } = caller;
      ensureTrained(deployment);
      const events = deps.chat.answer(
        {
          deployment,
          account,
          endpoint: "mcp",
          question: input.question,
          questionParam: "question",
          history: [],
          conversationId: input.conversation_id,
        },
        signal,
      );
      const { sources: s, text, done } = await collectAnswer(events);
      return {
        status: s.refused ? ("refused" as const) : ("answered" as const),
        answer: s.refused ? null : text,
        // the owner's refusal text when set, else docchat's in the question's language
        refusal: s.refused
          ? {
              reason: "not_in_documents" as const,
              message: refusalText(deployment, visitorLanguage({ question: input.question, pinned: deployment.languages })),
            }
          : null,
        sources: s.sources,
        citations: s.citations.map((c) => ({ id: passageId(c.chunkId), citation: citationView(c) })),
        from_correction: s.correctionId !== null,
        search_query: s.searchQuery,
        conversation_id: s.conversationId,
        chat_log_id: done.chatLogId,
        usage: {
          prompt_tokens: done.usage.promptTokens,
          completion_tokens: done.usage.completionTokens,
          total_tokens: done.usage.totalTokens,
        },
      };
    },
  };
}

export type McpTools = ReturnType<typeof createMcpTools>;
