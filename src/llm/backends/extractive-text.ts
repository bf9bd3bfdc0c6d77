/** Text helpers for the extractive backend: sentence splitting, term extraction and delta grouping. */

const STOPWORDS = new Set(
  (
    "a an and are as at be been being but by can could did do does doing for from had has have having he her " +
    "here hers him his how i if in into is it its itself just me more most my no nor not of off on once only or " +
    "other our ours out over own same she should so some such than that the their theirs them then there these " +
    "they this those through to too under until up very was we were what when where which while who whom why " +
    "will with would you your yours about above after again against all am any because before below between " +
    "both down during each few further tell please know"
  ).split(" "),
);

/** Crude suffix stripping so "refunds", "refunded" and "refunding" meet; a real stemmer buys little here. */
function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  for (const suffix of ["ing", "edly", "ed", "ly", "es", "s"]) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3 && !word.endsWith("ss")) {
      return word.slice(0, -suffix.length);
    }
  }
  return word;
}

export function extractTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  // single letters are mostly contraction debris ("what's" → "s"); single digits still count
  return words.filter((w) => (w.length > 1 || /\d/.test(w)) && !STOPWORDS.has(w)).map(stem);
}

/** Splits on sentence punctuation followed by space, and on blank lines / line breaks (lists, CSV rows). */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/u)
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/** Groups words (with their following whitespace) so that concatenating the groups gives back `text`. */
export function toWordGroups(text: string, wordsPerGroup: number): string[] {
  const pieces = text.match(/\S+\s*/g) ?? [];
  const groups: string[] = [];
  for (let i = 0; i < pieces.length; i += wordsPerGroup) groups.push(pieces.slice(i, i + wordsPerGroup).join(""));
  return groups;
}
