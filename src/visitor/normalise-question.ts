/**
 * The key a correction is matched by: Unicode-normalised, lowercase, punctuation removed, whitespace
 * collapsed. "What are your opening hours?" and "  what are your opening   hours" are the same question; punctuation
 * is removed rather than spaced, so "What's" matches "whats".
 */
export function normaliseQuestion(question: string): string {
  return question
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\p{P}+/gu, "")
    .replace(/\s+/g, " ")
    .trim();
}
