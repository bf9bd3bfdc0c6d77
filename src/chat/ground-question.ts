import type { CompleteRequest, LlmBackend, Tenant } from "../llm/backend.ts";
import { changedTerms, hasAnaphor, isElliptic, isFollowUp, rewriteFollowUp } from "../rag/follow-up.ts";
import { isGrounded } from "../rag/grounding-gate.ts";
import { rewriteWithModel } from "../rag/llm-rewrite.ts";
import type { Retrieval } from "../rag/retrieval.types.ts";
import type { Retriever } from "../rag/retrieve.ts";
import type { ThreadTurn } from "./conversation.ts";

export interface Grounding {
  retrieval: Retrieval;
  searchQuery: string;
  /** what an elliptic follow-up changed: the answer must mention it ("And in October?" → october) */
  mustMention: string[];
  grounded: boolean;
  retrievalFallback: boolean;
}

export interface GroundingSettings {
  topK: number;
  threshold: number;
  /** the threshold while a reranker judges (its scores are probabilities, not term coverage); `threshold` when absent */
  rerankThreshold?: number;
}

/** The gate's threshold for how this retrieval was judged. */
export const thresholdFor = (s: GroundingSettings, r: Retrieval) =>
  r.judgedBy === "reranker" ? (s.rerankThreshold ?? s.threshold) : s.threshold;

/** The passage that grounded a retrieval: its most relevant hit. */
const bestChunk = (r: Retrieval) =>
  r.hits.reduce<{ id: number; rel: number }>((b, h) => (h.relevance > b.rel ? { id: h.chunkId, rel: h.relevance } : b), { id: -1, rel: -1 })
    .id;

/**
 * Resolves a follow-up deterministically, searches, and gates. The visitor's own wording wins
 * (retrieval_fallback) when the resolved query is not grounded but the original is, and when a question
 * without a pronoun ("and when was the lighthouse built?") is grounded on its own in a different passage
 * than the resolved one: the visitor changed the subject, and the carried-over one would only mislead.
 * A rewrite alone never refuses. No model is called here, so a refusal never costs a model call.
 */
export async function groundQuestion(
  retriever: Retriever,
  input: { deploymentId: string; question: string; history: ThreadTurn[]; languages?: readonly string[] },
  s: GroundingSettings,
): Promise<Grounding> {
  const resolved = rewriteFollowUp(
    input.question,
    input.history.filter((t) => t.question).map((t) => ({ question: t.question, searchQuery: t.searchQuery, answer: t.answer })),
  );
  const previous = input.history.filter((t) => t.question).at(-1);
  const mustMention =
    resolved !== input.question && isElliptic(input.question) && previous
      ? changedTerms(input.question, previous.searchQuery ?? previous.question)
      : [];
  const search = (query: string, must: string[] = []) =>
    retriever.retrieve({ deploymentId: input.deploymentId, query, topK: s.topK, mustMention: must, languages: input.languages });
  const ok = (r: Retrieval) => isGrounded(r.relevance, thresholdFor(s, r));
  const first = await search(resolved, mustMention);
  const asResolved = { retrieval: first, searchQuery: resolved, mustMention, grounded: ok(first), retrievalFallback: false };
  // an elliptic question ("And in October?") names only what changes: on its own it is no question at all
  if (resolved === input.question || (ok(first) && hasAnaphor(input.question)) || isElliptic(input.question)) return asResolved;
  const plain = await search(input.question);
  if (!ok(plain)) return asResolved;
  if (ok(first) && bestChunk(plain) === bestChunk(first)) return asResolved;
  return { retrieval: plain, searchQuery: input.question, mustMention: [], grounded: true, retrievalFallback: true };
}

/**
 * With a real model configured, a grounded follow-up is rewritten once more by the model (bounded call);
 * its query replaces the deterministic one only if it is grounded too; when it is not, the visitor's own
 * wording is used if that is grounded (retrieval_fallback). Returns the tokens the call used.
 */
export async function refineWithModel(
  backend: LlmBackend,
  retriever: Retriever,
  g: Grounding,
  input: {
    deploymentId: string;
    question: string;
    history: ThreadTurn[];
    signal: AbortSignal;
    tenant?: Tenant;
    languages?: readonly string[];
  },
  s: GroundingSettings & { timeoutMs: number; maxTokens: number },
): Promise<{ grounding: Grounding; promptTokens: number; completionTokens: number }> {
  const none = { grounding: g, promptTokens: 0, completionTokens: 0 };
  const complete = backend.complete?.bind(backend);
  if (!complete || g.retrievalFallback || input.history.length === 0 || !isFollowUp(input.question)) return none;
  const model = {
    complete: (req: CompleteRequest) => complete({ ...req, tenant: input.tenant }),
    countTokens: backend.countTokens.bind(backend),
  };
  const history = input.history.map((t) => ({ question: t.question, answer: t.answer }));
  const r = await rewriteWithModel(model, {
    question: input.question,
    history,
    signal: input.signal,
    timeoutMs: s.timeoutMs,
    maxTokens: s.maxTokens,
  });
  if (!r) return none;
  const used = { promptTokens: r.promptTokens, completionTokens: r.completionTokens };
  if (r.query === g.searchQuery) return { grounding: g, ...used };
  const search = (query: string) =>
    retriever.retrieve({ deploymentId: input.deploymentId, query, topK: s.topK, languages: input.languages });
  const retrieval = await search(r.query);
  if (isGrounded(retrieval.relevance, thresholdFor(s, retrieval)))
    return { grounding: { retrieval, searchQuery: r.query, mustMention: [], grounded: true, retrievalFallback: false }, ...used };
  // The model's rewrite matched nothing: as with the deterministic rewrite, the visitor's own wording wins
  // when it is grounded (retrieval_fallback), else the deterministic rewrite stands.
  if (g.searchQuery === input.question) return { grounding: g, ...used };
  const plain = await search(input.question);
  if (!isGrounded(plain.relevance, thresholdFor(s, plain))) return { grounding: g, ...used };
  return {
    grounding: { retrieval: plain, searchQuery: input.question, mustMention: [], grounded: true, retrievalFallback: true },
    ...used,
  };
}
