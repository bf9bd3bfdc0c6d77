import { estimateTokens } from "../llm/estimate-tokens.ts";
import type { PromptPassage, PromptTurn } from "../rag/prompt.ts";

/** The grounding rules, the passage tags and the message frames: what the prompt holds besides the texts. */
const FRAME_TOKENS = 160;
const PER_PASSAGE_TOKENS = 24;
const PER_TURN_TOKENS = 8;

/**
 * Cuts what goes to the model to its context window: max_tokens takes at most half of it, then the passages
 * (in rank order; the first one is cut to what is left rather than dropped), then the most recent turns of
 * history that still fit. Nothing is cut when everything fits. `cost` estimates the call: the prompt plus max_tokens.
 */
export function fitToContext<P extends PromptPassage>(input: {
  contextTokens: number;
  maxTokens: number;
  persona: string;
  question: string;
  passages: P[];
  history: PromptTurn[];
}): { passages: P[]; history: PromptTurn[]; maxTokens: number; cost: number } {
  const maxTokens = Math.max(1, Math.min(input.maxTokens, Math.floor(input.contextTokens / 2)));
  let left = input.contextTokens - maxTokens - FRAME_TOKENS - estimateTokens(input.persona) - estimateTokens(input.question);
  const passages: P[] = [];
  for (const p of input.passages) {
    const cost = estimateTokens(p.text) + PER_PASSAGE_TOKENS;
    if (cost <= left) {
      passages.push(p);
      left -= cost;
    } else if (passages.length === 0 && left > PER_PASSAGE_TOKENS) {
      passages.push({ ...p, text: cutToTokens(p.text, left - PER_PASSAGE_TOKENS) });
      left = 0;
    }
  }
  const history: PromptTurn[] = [];
  for (const t of [...input.history].reverse()) {
    const cost = estimateTokens(t.question) + estimateTokens(t.answer) + PER_TURN_TOKENS;
    if (cost > left) break;
    history.unshift(t);
    left -= cost;
  }
  // what the call may cost, estimated: the prompt as cut plus the whole max_tokens
  return { passages, history, maxTokens, cost: input.contextTokens - Math.max(0, left) };
}

/** The longest prefix of `text` within `tokens`, ended at a word boundary when there is one. */
export function cutToTokens(text: string, tokens: number): string {
  if (estimateTokens(text) <= tokens) return text;
  let end = Math.min(text.length, Math.max(0, tokens) * 4);
  while (end > 0 && estimateTokens(text.slice(0, end)) > tokens) end = Math.floor(end * 0.9);
  const space = text.lastIndexOf(" ", end);
  return text.slice(0, space > end / 2 ? space : end);
}
