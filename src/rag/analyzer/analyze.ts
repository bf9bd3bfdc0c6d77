import { ENGLISH_IRREGULAR } from "./english-irregular.ts";
import type { Lang } from "./languages.ts";
import { foldTerm, isSymbolTerm, tokenize } from "./normalise.ts";
import { stemWord } from "./stemmers.ts";
import { stopwords } from "./stopwords.ts";

/**
 * The one analyzer: text → the terms the keyword index holds and questions are searched with. Normalise (case;
 * Turkish i), segment (Intl.Segmenter for scripts without spaces), drop the language's stop words, stem (Snowball),
 * fold diacritics. Indexing, the query, the grounding gate and the composer all call it, so a word is the same
 * term everywhere.
 */

/**
 * What built an index: stored with each deployment's keyword index, which is rebuilt (documents/keyword-reindex.ts)
 * when this changes. Change it with any change to what analyze() returns for a text: stemmers, stop lists, folding.
 */
export const ANALYZER_VERSION = "snowball-3";

/** A single letter of an alphabet is contraction debris ("what's", "l'eau"); a digit or a CJK character is a word. */
const isDebris = (t: string) => t.length === 1 && /[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]/u.test(t);

const isStop = (t: string, lang: Lang) => {
  const s = stopwords(lang);
  return s.has(t) || s.has(foldTerm(t));
};

/**
 * German participles of separable verbs put "ge" between the particle and the verb (nach-ge-lesen, auf-ge-führt),
 * which Snowball leaves in: without it "nachgelesen" meets "nachlesen" and "aufgeführt" meets "aufführen".
 */
const SEPARABLE_GE =
  /^(ab|an|auf|aus|bei|durch|ein|fest|fort|her|hin|los|mit|nach|vor|weg|zu|zurück|zurueck|zusammen|dar|heim|nieder|weiter|wieder)ge(.{3,})$/;

/** A lower-cased word's term in `lang`: its stem, folded. */
export const termOf = (word: string, lang: Lang): string => {
  if (isSymbolTerm(word)) return word;
  const stem = stemWord(lang === "en" ? (ENGLISH_IRREGULAR.get(word) ?? word) : word, lang);
  return foldTerm(lang === "de" ? stem.replace(SEPARABLE_GE, "$1$2") : stem);
};

/** Index terms of `text` in `lang`, in order, repeats kept (term frequencies count them). */
export function analyze(text: string, lang: Lang): string[] {
  return analyzeCounting(text, lang).terms;
}

/**
 * analyze(), and how many of the text's words were the language's stop words (a text in another language has few).
 * `tokens`: the text's tokenize(text, { turkish }), when in hand.
 */
export function analyzeCounting(text: string, lang: Lang, tokens?: readonly string[]): { terms: string[]; words: number; stops: number } {
  const terms: string[] = [];
  let words = 0;
  let stops = 0;
  let memo = indexTerms.get(lang);
  if (!memo) {
    memo = new Map();
    indexTerms.set(lang, memo);
  }
  for (const t of tokens ?? tokenize(text, { turkish: lang === "tr" })) {
    words++;
    let term = memo.get(t);
    if (term === undefined) {
      term = isDebris(t) ? "" : isStop(t, lang) ? null : termOf(t, lang);
      if (memo.size >= INDEX_TERMS_MEMO) memo.clear();
      memo.set(t, term);
    }
    if (term === null) stops++;
    else if (term !== "") terms.push(term);
  }
  return { terms, words, stops };
}

/** each word's index term per language ("" debris, null a stop word): a word's analysis is looked up far more often than done */
const indexTerms = new Map<Lang, Map<string, string | null>>();
const INDEX_TERMS_MEMO = 200_000;

/** Every word's term in `lang`, stop words included: what a passage "mentions" when the gate compares words. */
export function termSet(text: string, lang: Lang): Set<string> {
  return new Set(tokenize(text, { turkish: lang === "tr" }).map((t) => termOf(t, lang)));
}

/** One content word of a question and the terms it may be indexed under. */
export interface QueryWord {
  /** lower-cased as written, diacritics kept */
  word: string;
  /** its term in the question's language: what the gate weighs and looks for */
  key: string;
  /** its terms in each analysis language, key first, no repeats: what keyword search looks up */
  forms: string[];
}

/** "What does X hold / mean / stand for?": a definition is asked for, and the verb is not a word to find */
export const FRAME_VERBS = ["hold", "mean", "contain", "store", "represent", "stand", "refer", "denote", "indicate"] as const;
const FRAME_VERB = new RegExp(String.raw`^\s*what\s+(?:does|do|did)\s+.+?\s+(${FRAME_VERBS.join("|")})\s*(?:for|to)?\s*\??\s*$`, "i");

// "how long", "how much": the second word asks for a kind of answer, it is not what the question is about.
const HOW_WORDS = new Set(["long", "much", "many", "often", "far", "old", "big", "large", "soon", "come"]);

/**
 * The content words of a question, in first-seen order, at most `max`: a word is dropped when it is a stop word in
 * any of the analysis languages (a German question detected as English must not search for "die" and "ist").
 * `langs[0]` is the question's language; the others are the languages of the deployment's documents, so a name
 * or a number in an English question is also looked up as the German index holds it.
 */
export function analyzeQuery(text: string, langs: readonly Lang[], max = 32): QueryWord[] {
  const lang = langs[0] ?? "en";
  const out = new Map<string, QueryWord>();
  const tokens = tokenize(text, { turkish: langs.includes("tr") });
  // "What does OLDPWD hold?": the verb only asks what the thing is
  const frame = lang === "en" ? FRAME_VERB.exec(text)?.[1]?.toLowerCase() : undefined;
  for (const [i, t] of tokens.entries()) {
    if (isDebris(t) || langs.some((l) => isStop(t, l))) continue;
    if (t === frame && i >= tokens.length - 2) continue;
    if (HOW_WORDS.has(t) && tokens[i - 1] === "how") continue;
    if (out.has(t)) continue;
    const key = termOf(t, lang);
    out.set(t, { word: t, key, forms: [...new Set([key, ...langs.map((l) => termOf(t, l))])] });
    if (out.size >= max) break;
  }
  return [...out.values()];
}
