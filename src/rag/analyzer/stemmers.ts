import { stemmer as da } from "@orama/stemmers/danish";
import { stemmer as nl } from "@orama/stemmers/dutch";
import { stemmer as fi } from "@orama/stemmers/finnish";
import { stemmer as fr } from "@orama/stemmers/french";
import { stemmer as de } from "@orama/stemmers/german";
import { stemmer as it } from "@orama/stemmers/italian";
import { stemmer as no } from "@orama/stemmers/norwegian";
import { stemmer as pt } from "@orama/stemmers/portuguese";
import { stemmer as ru } from "@orama/stemmers/russian";
import { stemmer as es } from "@orama/stemmers/spanish";
import { stemmer as sv } from "@orama/stemmers/swedish";
import { stemmer as tr } from "@orama/stemmers/turkish";
import { EnglishStemmer } from "snowball-stemmer.jsx/dest/english-stemmer.common.js";
import { stripKoreanParticles } from "./korean.ts";
import type { Lang } from "./languages.ts";

/**
 * One stemmer per language: the Snowball algorithms, chosen by measurement (docs/languages.md): @orama/stemmers
 * (the Snowball compiler's JavaScript output) agrees with the Snowball project's test vocabularies on every word
 * for the twelve languages it is used for; its English is the older Porter algorithm, so English is
 * snowball-stemmer.jsx's Porter2 (also exact). Chinese, Japanese and Thai words do not inflect the way stemming
 * undoes; Korean attaches particles, which are stripped.
 */
const english = new EnglishStemmer();
const SNOWBALL: Partial<Record<Lang, (w: string) => string>> = {
  en: (w) => english.stemWord(w),
  de,
  fr,
  es,
  it,
  pt,
  nl,
  sv,
  da,
  no,
  fi,
  ru,
  tr,
  ko: stripKoreanParticles,
};

/** Stems are looked up far more often than computed (Zipf): a bounded memo per language. */
const MEMO_LIMIT = 50_000;
const memos = new Map<Lang, Map<string, string>>();

export function hasStemmer(lang: Lang): boolean {
  return SNOWBALL[lang] !== undefined;
}

/** The stem of a lower-cased word (diacritics kept); words with digits and very short words stay as they are. */
export function stemWord(word: string, lang: Lang): string {
  const f = SNOWBALL[lang];
  if (!f || word.length < 3) return word;
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
