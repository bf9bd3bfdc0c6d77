import type { Config } from "../config/index.ts";
import type { LlmBackend } from "../llm/backend.ts";
import type { Logger } from "../log.ts";
import { calibrationFor } from "../rag/cosine-calibration.ts";
import type { Embedder } from "../rag/embedder.ts";
import type { Reranker } from "../rag/rerank/reranker.ts";
import { createRetriever } from "../rag/retrieve.ts";
import type { Db } from "../store/db.ts";
import type { AccountsRepo } from "../store/repos/accounts.repo.ts";
import { createChatLogsRepo } from "../store/repos/chat-logs.repo.ts";
import type { ChunkIndexRepo } from "../store/repos/chunk-index.repo.ts";
import { createConversationsRepo } from "../store/repos/conversations.repo.ts";
import { createTermStatsRepo } from "../store/repos/term-stats.repo.ts";
import { type CorrectionsLookup, createChatService } from "./chat.service.ts";

/** The gate's IDF smoothing (termWeights), measured in bench/retrieval.bench.ts. */
export const MIN_IDF_CORPUS = 250;

/** Builds the answering pipeline from configuration: retriever, repos and chat service over one backend. */
export function createChatStack(deps: {
  db: Db;
  config: Config;
  accounts: AccountsRepo;
  chunkIndex: ChunkIndexRepo;
  embedder: () => Promise<Embedder | null>;
  reranker?: () => Promise<Reranker | null>;
  backend: LlmBackend;
  corrections?: CorrectionsLookup;
  log?: Logger;
}) {
  const { config } = deps;
  const conversations = createConversationsRepo(deps.db);
  const chatLogs = createChatLogsRepo(deps.db, { accounts: deps.accounts, conversations });
  const retriever = createRetriever({
    index: deps.chunkIndex,
    stats: createTermStatsRepo(deps.db),
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
  const chat = createChatService({
    retriever,
    backend: deps.backend,
    accounts: deps.accounts,
    chatLogs,
    conversations,
    corrections: deps.corrections,
    log: deps.log,
    settings: {
      topK: config.topK,
      refusalThreshold: config.refusalThreshold,
      rerankThreshold: config.rerankThreshold,
      defaultMaxTokens: config.answerMaxTokens,
      historyTurns: 6,
      rewriteTimeoutMs: config.rewriteTimeoutMs,
      rewriteMaxTokens: 96,
    },
  });
  return { chat, retriever, chatLogs, conversations };
}
