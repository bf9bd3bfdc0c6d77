import type { LlmBackend } from "../llm/backend.ts";
import type { Logger } from "../log.ts";
import { buildAnswerPrompt, buildPersonaPrompt } from "../rag/prompt.ts";
import type { RetrievalHit } from "../rag/retrieval.types.ts";
import type { Retriever } from "../rag/retrieve.ts";
import type { AccountsStore, ChatLogsStore, ConversationsStore, NewTurn } from "../store/contract/index.ts";
import { visitorEmail } from "../visitor/validate.ts";
import type { ChatEvent, ChatRequest, SourcesEvent } from "./chat.types.ts";
import { checkHistory, checkMaxTokens, checkQuestion, checkTemperature, checkThreadKey } from "./chat-bounds.ts";
import { mintCompletionId } from "./chat-ids.ts";
import { citationsOf } from "./citations.ts";
import { resolveThread, type ThreadTurn } from "./conversation.ts";
import { generateAnswer } from "./generate-answer.ts";
import { groundQuestion, refineWithModel, thresholdFor } from "./ground-question.ts";
import { fitToContext } from "./prompt-budget.ts";
import { refusalText, visitorLanguage } from "./refusal.ts";
import { holdTokens, MIN_MODEL_TOKENS, MIN_QUOTE_TOKENS, REWRITE_HOLD_TOKENS, type TokenHold } from "./token-hold.ts";

export interface CorrectionsLookup {
  findFor(deploymentId: string, question: string): Promise<{ correctionId: number; answer: string } | null>;
}

export interface ChatSettings {
  topK: number;
  refusalThreshold: number;
  /** the threshold while a reranker judges; refusalThreshold when absent */
  rerankThreshold?: number;
  /** answer length when the request sets no max_tokens */
  defaultMaxTokens: number;
  historyTurns: number;
  rewriteTimeoutMs: number;
  rewriteMaxTokens: number;
  /** the model's context window: what it reads plus what it writes is cut to fit */
  contextTokens: number;
  /** how long tokens held for an answer count when it never settles (a crash): longer than any answer takes */
  holdTtlMs: number;
}

export interface ChatDeps {
  retriever: Retriever;
  backend: LlmBackend;
  accounts: AccountsStore;
  chatLogs: ChatLogsStore;
  conversations: ConversationsStore;
  corrections?: CorrectionsLookup;
  settings: ChatSettings;
  log?: Logger;
}

/** What a turn records beyond what the request already says. */
type TurnFields = Omit<
  NewTurn,
  "deploymentId" | "accountId" | "conversationId" | "completionId" | "endpoint" | "question" | "visitorEmail"
>;

const distinctSources = (hits: RetrievalHit[]) => [...new Set(hits.map((h) => h.source))];

/**
 * Past the refusal bar, an answer is confident once its relevance covers another third of what is left above the
 * bar (0.59 at the default 0.37). Below that the closest passage is still quoted, and says it is only the closest.
 * Measured on the dev set (docchat eval): under it, as many answers were wrong as right.
 */
const CONFIDENT_SHARE = 0.35;
export const isConfident = (relevance: number, threshold: number) => relevance >= threshold + (1 - threshold) * CONFIDENT_SHARE;

/** The passages an answer may stand on: the best one, and any other that reaches half the refusal bar itself. */
function answerPassages(hits: RetrievalHit[], threshold: number): RetrievalHit[] {
  const best = hits.reduce<RetrievalHit | null>((b, h) => (!b || h.relevance > b.relevance ? h : b), null);
  return hits.filter((h) => h === best || h.relevance >= threshold / 2);
}

/**
 * The answering pipeline: corrections → (private GPT: persona chat) → follow-up resolution → hybrid
 * retrieval → grounding gate (refusal: free, no model call) → balance check → model → chat log + debit.
 */
export function createChatService(deps: ChatDeps) {
  const { settings: s } = deps;

  /** Whatever happens to the answer, tokens it held and did not spend go back. */
  async function* answer(input: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatEvent> {
    const held: { hold: TokenHold | null } = { hold: null };
    try {
      yield* answerHolding(input, signal, held);
    } finally {
      const h = held.hold;
      if (h && !h.settled) await deps.accounts.release(h.id).catch(() => {});
    }
  }

  /** Holds tokens for a turn about to use a model (or quote): `want`, or as much as is free down to `minimum`. */
  const hold = async (held: { hold: TokenHold | null }, accountId: number, want: number, minimum: number) => {
    held.hold = await holdTokens(deps.accounts, { accountId, want, minimum, ttlMs: s.holdTtlMs });
    return held.hold;
  };

  async function* answerHolding(input: ChatRequest, signal: AbortSignal, held: { hold: TokenHold | null }): AsyncGenerator<ChatEvent> {
    const req = { ...input, question: checkQuestion(input.question, input.questionParam ?? "message") };
    checkHistory(req.history, (i) => `messages[${i}].content`);
    checkTemperature(req.temperature);
    checkMaxTokens(req.maxTokens);
    checkThreadKey(req.conversationId, "conversation_id");
    checkThreadKey(req.user, "user");
    const email = req.visitorEmail ? visitorEmail(req.visitorEmail, "visitor_email") : null;
    const dep = req.deployment;
    const thread = await resolveThread(deps, {
      deploymentId: dep.id,
      conversationId: req.conversationId,
      user: req.user,
      messages: req.history,
      maxTurns: s.historyTurns,
    });
    const completionId = mintCompletionId();
    const base = { conversationId: thread.conversationId, completionId };
    const record = (t: TurnFields) => {
      const h = held.hold;
      if (h) h.settled = true;
      return deps.chatLogs.record({
        ...t,
        reservationId: h?.id ?? null,
        deploymentId: dep.id,
        accountId: req.account.id,
        conversationId: thread.conversationId,
        completionId,
        endpoint: req.endpoint,
        question: req.question,
        visitorEmail: email,
      });
    };
    /** The sources event of an answer that stands on no passage: a correction, a persona chat or a refusal. */
    const noSources = (searchQuery: string, o: { refused?: boolean; correctionId?: number } = {}): SourcesEvent => ({
      type: "sources",
      ...base,
      searchQuery,
      sources: [],
      citations: [],
      hits: [],
      contextIds: [],
      refused: o.refused ?? false,
      confidence: null,
      retrievalFallback: false,
      correctionId: o.correctionId ?? null,
    });
    /** A reply no model wrote (a correction, the refusal): recorded free of charge, then sent whole. */
    async function* fixed(
      searchQuery: string,
      text: string,
      o: { refused?: boolean; correctionId?: number } = {},
    ): AsyncGenerator<ChatEvent> {
      const { chatLogId } = await record({
        searchQuery,
        answer: text,
        sources: [],
        promptTokens: 0,
        completionTokens: 0,
        refused: o.refused ?? false,
        correctionId: o.correctionId ?? null,
      });
      yield noSources(searchQuery, o);
      yield { type: "delta", text };
      yield {
        type: "done",
        chatLogId,
        answer: text,
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
        finishReason: "stop",
      };
    }

    // An owner-written correction is served as is: free, no retrieval, no model, even at zero balance.
    const correction = await deps.corrections?.findFor(dep.id, req.question);
    if (correction) {
      yield* fixed(req.question, correction.answer, { correctionId: correction.correctionId });
      return;
    }

    const tenant = { deploymentId: dep.id, accountId: req.account.id };
    const generation = { temperature: req.temperature ?? dep.temperature, maxTokens: req.maxTokens ?? s.defaultMaxTokens, signal, tenant };
    if (dep.kind === "private_gpt") {
      const prompt = { persona: dep.persona, question: req.question, passages: [], history: thread.history };
      const want = fitToContext({ ...generation, ...prompt, contextTokens: s.contextTokens }).cost;
      const h = await hold(held, req.account.id, want, Math.min(want, MIN_MODEL_TOKENS));
      yield noSources(req.question);
      const fit = fitToContext({ ...generation, ...prompt, contextTokens: Math.min(s.contextTokens, h.amount) });
      const messages = buildPersonaPrompt({ persona: dep.persona, question: req.question, history: fit.history, lang: req.lang });
      yield* generated(
        { ...generation, maxTokens: fit.maxTokens, messages, question: req.question },
        { searchQuery: req.question, sources: [], extra: { promptTokens: 0, completionTokens: 0 } },
        record,
      );
      return;
    }

    const gs = {
      topK: s.topK,
      threshold: dep.refusalThreshold ?? s.refusalThreshold,
      rerankThreshold: dep.refusalThreshold ?? s.rerankThreshold,
    };
    let grounding = await groundQuestion(
      deps.retriever,
      { deploymentId: dep.id, question: req.question, history: thread.history, languages: dep.languages },
      gs,
    );
    if (!grounding.grounded) {
      const lang = visitorLanguage({ lang: req.lang, question: req.question, pinned: dep.languages });
      yield* fixed(grounding.searchQuery, refusalText(dep, lang), { refused: true });
      return;
    }
    // Held before any model runs: a quoting answer its max_tokens; a model what the prompt over these passages
    // (and a rewrite of the follow-up) may cost. Whatever the rewrite changes, what is sent is cut to what is held.
    const quoting = deps.backend.compose !== undefined;
    const rewrite = !quoting && deps.backend.complete && thread.history.length > 0 ? REWRITE_HOLD_TOKENS : 0;
    const estimate = quoting
      ? 0
      : fitToContext({
          ...generation,
          contextTokens: s.contextTokens,
          persona: dep.persona,
          question: req.question,
          passages: answerPassages(grounding.retrieval.hits, thresholdFor(gs, grounding.retrieval)),
          history: thread.history,
        }).cost;
    const h = quoting
      ? await hold(held, req.account.id, generation.maxTokens, MIN_QUOTE_TOKENS)
      : await hold(held, req.account.id, estimate + rewrite, Math.min(estimate, MIN_MODEL_TOKENS) + rewrite);
    const refined = await refineWithModel(
      deps.backend,
      deps.retriever,
      grounding,
      { deploymentId: dep.id, question: req.question, history: thread.history, signal, tenant, languages: dep.languages },
      { ...gs, timeoutMs: s.rewriteTimeoutMs, maxTokens: s.rewriteMaxTokens },
    );
    grounding = refined.grounding;
    const hits = grounding.retrieval.hits;
    // A model reads only the passages that themselves come near the bar; a quoting backend says what it quotes.
    // What a model reads is cut to its context window (a quoting backend sends nothing anywhere).
    const threshold = thresholdFor(gs, grounding.retrieval);
    const near = answerPassages(hits, threshold);
    const confidence = isConfident(grounding.retrieval.relevance, threshold) ? "high" : "low";
    const left = h.amount - refined.promptTokens - refined.completionTokens;
    const fitted = quoting
      ? { passages: near, history: thread.history, maxTokens: Math.max(1, Math.min(generation.maxTokens, left)) }
      : fitToContext({
          ...generation,
          contextTokens: Math.min(s.contextTokens, left),
          persona: dep.persona,
          question: req.question,
          passages: near,
          history: thread.history,
        });
    const given = fitted.passages;
    const messages = buildAnswerPrompt({
      persona: dep.persona,
      passages: given,
      question: req.question,
      history: fitted.history,
      lang: req.lang,
    });
    const passages = given.map((h) => ({ text: h.text, source: h.source, headingPath: h.headingPath }));
    const genReq = {
      ...generation,
      maxTokens: fitted.maxTokens,
      messages,
      passages,
      question: req.question,
      lang: visitorLanguage({ lang: req.lang, question: req.question, pinned: dep.languages }),
      searchQuery: grounding.searchQuery,
      mustMention: grounding.mustMention,
      termWeights: grounding.retrieval.weights,
      hedge: confidence === "low",
    };
    const quoted = deps.backend.compose?.(genReq);
    const cited = quoted ? quoted.used.flatMap((i) => given[i] ?? []) : given;
    const sources = distinctSources(cited);
    const citations = citationsOf(cited);
    // content gaps count an answer given with low confidence (the closest passage only came near) as weak
    const weak = confidence === "low";
    const ev: SourcesEvent = {
      type: "sources",
      ...base,
      searchQuery: grounding.searchQuery,
      sources,
      citations,
      hits,
      contextIds: given.map((h) => h.chunkId),
      refused: false,
      confidence,
      retrievalFallback: grounding.retrievalFallback,
      correctionId: null,
    };
    yield ev;
    yield* generated(genReq, { searchQuery: grounding.searchQuery, sources, extra: refined, citations, weak }, record);
  }

  async function* generated(
    req: Parameters<typeof generateAnswer>[1],
    turn: {
      searchQuery: string;
      sources: string[];
      extra: { promptTokens: number; completionTokens: number };
      citations?: TurnFields["citations"];
      weak?: boolean;
    },
    record: (t: TurnFields) => Promise<{ chatLogId: number }>,
  ): AsyncGenerator<ChatEvent> {
    for await (const step of generateAnswer(deps.backend, req)) {
      if (step.type === "delta") {
        yield step;
        continue;
      }
      if (step.type === "failed") {
        deps.log?.warn("answer failed", { code: step.error.code, cause: String((step.error.cause as Error | undefined)?.message ?? "") });
        yield { type: "error", error: step.error };
        return;
      }
      // Nothing generated before the visitor left: nothing to record or charge.
      if (!step.complete && !step.text) return;
      const promptTokens = step.promptTokens + turn.extra.promptTokens;
      const completionTokens = step.completionTokens + turn.extra.completionTokens;
      const { chatLogId } = await record({
        searchQuery: turn.searchQuery,
        answer: step.text,
        sources: turn.sources,
        promptTokens,
        completionTokens,
        refused: false,
        correctionId: null,
        citations: turn.citations,
        weak: turn.weak,
      });
      if (!step.complete) return;
      yield {
        type: "done",
        chatLogId,
        answer: step.text,
        usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
        finishReason: step.finishReason,
      };
    }
  }

  return { answer };
}

export type ChatService = ReturnType<typeof createChatService>;
export type { ThreadTurn };
