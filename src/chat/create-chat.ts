import type { Config } from "../config/index.ts";
import type { LlmBackend } from "../llm/backend.ts";
import type { Logger } from "../log.ts";
import { calibrationFor } from "../rag/cosine-calibration.ts";
import type { Embedder } from "../rag/embedder.ts";
import type { Reranker } from "../rag/rerank/reranker.ts";
import { createRetriever } from "../rag/retrieve.ts";
import type { ChatLogsStore, Repos } from "../store/contract/index.ts";
import { type CorrectionsLookup, createChatService } from "./chat.service.ts";

/** The gate's IDF smoothing (termWeights), measured in bench/retrieval.bench.ts. */
export const MIN_IDF_CORPUS = 250;

/** Builds the answering pipeline from configuration: retriever and chat service over one backend. */
export function createChatStack(deps: {
  config: Config;
  repos: Pick<Repos, "accounts" | "chatLogs" | "conversations" | "chunkIndex" | "termStats">;
  embedder: () => Promise<Embedder | null>;
  reranker?: () => Promise<Reranker | null>;
  backend: LlmBackend;
  corrections?: CorrectionsLookup;
  /** corrections as the owner's own checks see them: looked up without counting a serving */
  peekCorrections?: CorrectionsLookup;
  log?: Logger;
}) {
  const { config, repos } = deps;
  const retriever = createRetriever({
    index: repos.chunkIndex,
    stats: repos.termStats,
    embedder: deps.embedder,
    reranker: deps.reranker,
    settings: {
      keywordWeight: 1,
      vectorWeight: config.vectorWeight,
      candidates: 50,
      rrfK: 60,
      minIdfCorpus: MIN_IDF_CORPUS,
      calibration: (id) => calibrationFor(id) ?? config.embeddingsCosine,
      rerankCandidates: config.rerankCandidates,
    },
    log: deps.log,
  });
  const chatOver = (chatLogs: ChatLogsStore, corrections = deps.corrections) =>
    createChatService({
      retriever,
      backend: deps.backend,
      accounts: repos.accounts,
      chatLogs,
      conversations: repos.conversations,
      corrections,
      log: deps.log,
      settings: {
        topK: config.topK,
        refusalThreshold: config.refusalThreshold,
        rerankThreshold: config.rerankThreshold,
        defaultMaxTokens: config.answerMaxTokens,
        historyTurns: 6,
        rewriteTimeoutMs: config.rewriteTimeoutMs,
        rewriteMaxTokens: 96,
        contextTokens: config.llmContextTokens,
        holdTtlMs: 2 * config.llmTimeoutMs + 60_000,
      },
    });
  // Evaluation (src/eval) asks through the same pipeline, but its turns are not visitors': nothing is recorded or charged.
  const unrecorded: ChatLogsStore = Object.assign(Object.create(repos.chatLogs), {
    // what the turn held goes back, as a recorded turn's would
    record: async (t: { reservationId?: number | null }) => {
      if (t.reservationId) await repos.accounts.release(t.reservationId);
      return { chatLogId: 0, balance: null, debited: 0 };
    },
  });
  return {
    chat: chatOver(repos.chatLogs),
    evalChat: chatOver(unrecorded),
    // the owner's test questions and content-gap checks: unrecorded, and they don't count a correction as served
    dry: chatOver(unrecorded, deps.peekCorrections),
    retriever,
  };
}
