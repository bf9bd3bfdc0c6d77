/**
 * English stopwords dropped from keyword queries (NLTK's list plus a few claim fillers). An OR query of every
 * claim word would let "the"/"of" matches dominate recall; FTS5's bm25() already down-weights them, but they
 * still cost time and pull in noise.
 */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are aren as at be because been before being below between
both but by can couldn could d did didn do does doesn doing don down during each few for from further had hadn has
hasn have haven having he her here hers herself him himself his how i if in into is isn it its itself just ll m ma
me mightn more most mustn my myself needn no nor not now o of off on once only or other our ours ourselves out over
own re s same shan she should shouldn so some such t than that the their theirs them themselves then there these
they this those through to too under until up ve very was wasn we were weren what when where which while who whom
why will with won wouldn y you your yours yourself yourselves also may might must shall would`.split(/\s+/),
);

/** Lower-cased word tokens, split like FTS5's unicode61 tokenizer (letters and digits; everything else separates). */
export function wordTokens(text: string): string[] {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== "");
}

/** Distinct non-stopword tokens, in first-seen order. */
export function queryTerms(text: string): string[] {
  return [...new Set(wordTokens(text).filter((t) => !ENGLISH_STOPWORDS.has(t)))];
}
