import { STOPWORDS } from "./stopwords.ts";

/**
 * Word tokens as the FTS5 index splits them (unicode61, remove_diacritics 2, tokenchars '_'): runs of letters,
 * digits and underscores, case-folded, with the diacritics of Latin letters removed (é → e, İ → i) and no other
 * change — ligatures, full-width forms, Greek and Cyrillic marks stay as FTS5 keeps them, so a word's document
 * frequency is looked up under the term FTS5 indexed. Checked against SQLite's own tokenizer in the tests.
 */
export function wordTokens(text: string): string[] {
  return text
    .normalize("NFD")
    .replace(LATIN_MARKS, "$1")
    .normalize("NFC")
    .toLowerCase()
    .replaceAll("µ", "μ")
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((t) => t !== "");
}

/** combining marks after a Latin letter (after NFD): what remove_diacritics 2 removes */
const LATIN_MARKS = /(\p{Script=Latin})\p{M}+/gu;

// "how long", "how much": the second word asks for a kind of answer, it is not what the question is about.
const HOW_WORDS = new Set(["long", "much", "many", "often", "far", "old", "big", "large", "soon", "come"]);

/** Distinct content words of a query, in first-seen order; single letters are contraction debris ("what's"). */
export function queryTerms(text: string, max = 32): string[] {
  const out = new Set<string>();
  const tokens = wordTokens(text);
  for (const [i, t] of tokens.entries()) {
    if (STOPWORDS.has(t) || (t.length < 2 && !/\d/.test(t))) continue;
    if (HOW_WORDS.has(t) && tokens[i - 1] === "how") continue;
    out.add(t);
    if (out.size >= max) break;
  }
  return [...out];
}

/**
 * Light suffix folding so "refunds", "refunded" and "refund" meet when the gate checks coverage. The index
 * itself does not stem; this only decides whether a passage mentions a query word in some form.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let w = word;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else {
    for (const suffix of ["ingly", "edly", "ing", "ed", "ly", "s"]) {
      if (w.endsWith(suffix) && w.length - suffix.length >= 3 && !w.endsWith("ss")) {
        w = w.slice(0, -suffix.length);
        break;
      }
    }
  }
  // "include", "includes", "included", "including" all end as "includ"
  return w.length > 3 && w.endsWith("e") ? w.slice(0, -1) : w;
}

/** The stems of a text's words, as the gate and the composer compare them. */
export const stemSet = (text: string): Set<string> => new Set(wordTokens(text).map(stem));
