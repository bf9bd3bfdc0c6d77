/**
 * A deterministic token estimate for backends without a tokenizer of their own. BPE vocabularies split
 * common English words into about one token and long or rare words into roughly one per four characters;
 * punctuation is usually a token of its own. Good enough for billing estimates and budgets, never exact.
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const piece of text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []) {
    tokens += Math.max(1, Math.ceil(piece.length / 4));
  }
  return tokens;
}

/** The longest prefix of whole words that fits `maxTokens` (by the estimate above). */
export function truncateToTokens(text: string, maxTokens: number): string {
  let out = "";
  for (const word of text.match(/\S+\s*/g) ?? []) {
    if (out && estimateTokens(out + word) > maxTokens) break;
    out += word;
  }
  return out.trimEnd();
}
