import { visitorMessages } from "../../shared/visitor-messages.ts";
import type { AnswerComposer, ComposedReply, GenerateEvent, GenerateRequest, LlmBackend } from "../backend.ts";
import { estimateTokens, truncateToTokens } from "../estimate-tokens.ts";
import { toWordGroups } from "./extractive-text.ts";

/** Said when there is nothing to quote: we never invent text, so we say what we are instead (English; see i18n/). */
export const NO_MODEL_REPLY = visitorMessages("en").noModel;

const WORDS_PER_DELTA = 4;
/** the lead-in of an answer that is only the closest passage found (GenerateRequest.hedge); English, see i18n/ */
export const CLOSEST_PASSAGE = visitorMessages("en").closestPassage;

function lastUserMessage(req: GenerateRequest): string {
  return [...req.messages].reverse().find((m) => m.role === "user")?.content ?? "";
}

/**
 * The chat pipeline composes once to learn which passages the answer quotes (its sources), then generates from the
 * same request: the composed reply is kept per request object so the work is done once.
 */
const composedFor = new WeakMap<GenerateRequest, ComposedReply>();
function compose(req: GenerateRequest, composeAnswer: AnswerComposer): ComposedReply {
  let reply = composedFor.get(req);
  if (!reply) {
    reply = composeOnce(req, composeAnswer);
    composedFor.set(req, reply);
  }
  return reply;
}

function composeOnce(req: GenerateRequest, composeAnswer: AnswerComposer): ComposedReply {
  const budget = Math.max(1, req.maxTokens);
  const passages = req.passages ?? [];
  // the fixed words of a reply are in the visitor's language; the quotes are the documents' own
  const t = visitorMessages(req.lang);
  if (passages.length === 0) {
    const text = estimateTokens(t.noModel) <= budget ? t.noModel : truncateToTokens(t.noModel, budget);
    return { text, used: [], truncated: text !== t.noModel };
  }
  const composed = composeAnswer({
    passages,
    question: req.searchQuery ?? req.question ?? lastUserMessage(req),
    maxTokens: budget,
    weights: req.termWeights,
    mustMention: req.mustMention,
  });
  if (!req.hedge || !composed.text) return composed;
  // honest uncertainty: a weak match says what it is instead of looking like an answer
  const text = `${t.closestPassage}${composed.text}`;
  return { ...composed, text: estimateTokens(text) <= budget ? text : truncateToTokens(text, budget) };
}

/**
 * Answers by quoting the documents with `composeAnswer` (rag/compose-answer.ts, passed in by whoever builds the
 * backend). No model reads a prompt, so no prompt tokens are counted: the answer costs its own length, and the
 * debit equals usage.total_tokens.
 */
export function createExtractiveBackend(composeAnswer: AnswerComposer): LlmBackend {
  async function* generate(req: GenerateRequest): AsyncGenerator<GenerateEvent> {
    const { text, truncated } = compose(req, composeAnswer);
    for (const delta of toWordGroups(text, WORDS_PER_DELTA)) {
      if (req.signal?.aborted) return;
      yield { type: "delta", text: delta };
    }
    if (req.signal?.aborted) return;
    yield { type: "done", promptTokens: 0, completionTokens: estimateTokens(text), finishReason: truncated ? "length" : "stop" };
  }

  return {
    name: "extractive",
    generate,
    compose: (req) => compose(req, composeAnswer),
    countTokens: async (text) => estimateTokens(text),
    close: async () => {},
  };
}
