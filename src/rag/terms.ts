import { analyzeQuery, termOf } from "./analyzer/analyze.ts";
import { COMPOUNDING } from "./analyzer/decompound.ts";
import { DEFAULT_LANG, type Lang } from "./analyzer/languages.ts";
import { foldTerm, tokenize } from "./analyzer/normalise.ts";

/**
 * The analyzer's entry points for the rest of rag/ (the analyzer itself is rag/analyzer/): the index, the query,
 * the gate and the composer all reach words through here, so a word is the same term everywhere.
 */
export { ANALYZER_VERSION, analyze, analyzeQuery, FRAME_VERBS, type QueryWord } from "./analyzer/analyze.ts";
export { type Detection, detectLanguage } from "./analyzer/detect-language.ts";
export { type ChunkTerms, chunkTerms, documentLanguage, documentTerms, reanalyze } from "./analyzer/index-terms.ts";
export { DEFAULT_LANG, isLang, LANGUAGE_CODES, LANGUAGES, type Lang, parseLanguageList, toLang } from "./analyzer/languages.ts";

/** Word tokens, lower-cased and folded (é → e), no stop word removed, no stemming: for comparing wording. */
export function wordTokens(text: string): string[] {
  return tokenize(text).map(foldTerm);
}

/** Distinct content words of a query in `lang` (lower-cased as written), in first-seen order, at most `max`. */
export function queryTerms(text: string, max = 32, lang: Lang = DEFAULT_LANG): string[] {
  return analyzeQuery(text, [lang], max).map((w) => w.word);
}

/** A word's term in `lang`: its Snowball stem, folded. "refunds", "refunded" and "refund" meet. */
export function stem(word: string, lang: Lang = DEFAULT_LANG): string {
  return termOf(word.toLowerCase(), lang);
}

/** The terms of a text's words in `lang`, in order (stemSet keeps each once). */
export const stemTokens = (text: string, lang: Lang = DEFAULT_LANG): string[] =>
  tokenize(text, { turkish: lang === "tr" }).map((t) => termOf(t, lang));

/** The terms of a text's words in `lang`, as the gate and the composer compare them (compound tails included). */
export function stemSet(text: string, lang: Lang = DEFAULT_LANG): Set<string> {
  const out = new Set<string>();
  const compounding = COMPOUNDING.has(lang);
  for (const t of tokenize(text, { turkish: lang === "tr" })) {
    out.add(termOf(t, lang));
    if (compounding && t.length >= COMPOUND_CHARS && !/\d/.test(t))
      for (let i = 3; i <= t.length - TAIL_CHARS; i++) out.add(termOf(t.slice(i), lang));
  }
  return out;
}

/**
 * A word this long may be a compound whose last part the question asks for: each of its tails counts as a word,
 * stemmed as one ("Wintersemester" also holds "Semester"), in languages that write compounds as one word. Only for
 * comparing a question with a passage (the gate, the composer): the index keeps whole words.
 */
const COMPOUND_CHARS = 9;
const TAIL_CHARS = 4;

/**
 * Term weights that remember the language their keys were stemmed in, so passages are stemmed alike, and which of
 * their keys the deployment holds in no form (`absent`).
 */
export type TermWeights = Map<string, number> & { readonly lang?: Lang; readonly absent?: ReadonlySet<string> };

export const withLang = (weights: Map<string, number>, lang: Lang): TermWeights => Object.assign(weights, { lang });

/** The language a weights map was built in (English for maps built without one). */
export const langOf = (weights: Map<string, number>): Lang => (weights as TermWeights).lang ?? DEFAULT_LANG;
