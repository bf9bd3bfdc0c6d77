import { stripKoreanParticles } from "./korean.ts";
import type { Lang } from "./languages.ts";

type Stem = (word: string) => string;
const orama = (m: { stemmer: Stem }): Stem => m.stemmer;

/**
 * One stemmer per language: the Snowball algorithms, chosen by measurement (docs/languages.md): @orama/stemmers
 * (the Snowball compiler's JavaScript output) agrees with the Snowball project's test vocabularies on every word
 * for the twelve languages it is used for; its English is the older Porter algorithm, so English is
 * snowball-stemmer.jsx's Porter2 (also exact). Chinese, Japanese and Thai words do not inflect the way stemming
 * undoes; Korean attaches particles, which are stripped.
 * Each language's stemmer module is evaluated and built with its first word (a synchronous require, which the binary's
 * bundle keeps lazy): building all fourteen took tens of milliseconds of every start, before the first /health.
 */
const LOADERS: Partial<Record<Lang, () => Stem>> = {
  en: () => {
    const { EnglishStemmer } = require("snowball-stemmer.jsx/dest/english-stemmer.common.js") as typeof import("snowball-stemmer.jsx/dest/english-stemmer.common.js");
    const english = new EnglishStemmer();
    return (w) => english.stemWord(w);
  },
  de: () => orama(require("@orama/stemmers/german")),
  fr: () => orama(require("@orama/stemmers/french")),
  es: () => orama(require("@orama/stemmers/spanish")),
  it: () => orama(require("@orama/stemmers/italian")),
  pt: () => orama(require("@orama/stemmers/portuguese")),
  nl: () => orama(require("@orama/stemmers/dutch")),
  sv: () => orama(require("@orama/stemmers/swedish")),
  da: () => orama(require("@orama/stemmers/danish")),
  no: () => orama(require("@orama/stemmers/norwegian")),
  fi: () => orama(require("@orama/stemmers/finnish")),
  ru: () => orama(require("@orama/stemmers/russian")),
  tr: () => orama(require("@orama/stemmers/turkish")),
  ko: () => stripKoreanParticles,
};
const built = new Map<Lang, Stem>();

function stemmerOf(lang: Lang): Stem | undefined {
  let f = built.get(lang);
  if (f) return f;
  f = LOADERS[lang]?.();
  if (f) built.set(lang, f);
  return f;
}

/** Stems are looked up far more often than computed (Zipf): a bounded memo per language. */
const MEMO_LIMIT = 50_000;
const memos = new Map<Lang, Map<string, string>>();

export function hasStemmer(lang: Lang): boolean {
  return LOADERS[lang] !== undefined;
}

/** The stem of a lower-cased word (diacritics kept); words with digits and very short words stay as they are. */
export function stemWord(word: string, lang: Lang): string {
  if (word.length < 3) return word;
  const f = stemmerOf(lang);
  if (!f) return word;
  let memo = memos.get(lang);
  if (!memo) {
    memo = new Map();
    memos.set(lang, memo);
  }
  let s = memo.get(word);
  if (s === undefined) {
    s = /\d/.test(word) ? word : f(word);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(word, s);
  }
  return s;
}
