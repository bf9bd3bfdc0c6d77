import { type Lang, stem } from "./terms.ts";

/** An acronym's plural as written: an upper-case letter or a digit, then a lower-case "s" ("TLRs", "E2Fs", "mRNAs"). */
const ACRONYM_PLURAL = /(?<![\p{L}\p{N}])([\p{L}\p{N}]*[\p{Lu}\p{N}])s(?![\p{L}\p{N}])/gu;
/** Two words joined by a hyphen ("pro-inflammatory", "e-mail"). */
const HYPHENATED = /(?<![\p{L}\p{N}-])(\p{L}+)-(\p{L}+)(?![\p{L}\p{N}-])/gu;

/**
 * Index terms a question's words may also be written as that the stemmer does not reach, for keyword search only
 * (the gate weighs the words as asked):
 *  - an acronym's plural names the singular's documents too: Snowball English leaves the "s" of a word with a digit
 *    or without a vowel before it ("E2Fs", "TLRs", "mRNAs" stay as they are), where a text that says "TLR" is
 *    indexed under "tlr";
 *  - a hyphenated word is often written closed ("pro-inflammatory", "proinflammatory"), which the index holds as
 *    one term.
 * Candidates only: the caller keeps those the deployment holds. Measured on SciFact in bench/answers.bench.ts.
 */
export function writtenVariants(query: string, langs: readonly Lang[]): string[] {
  const out = new Set<string>();
  if (langs.includes("en"))
    for (const m of query.matchAll(ACRONYM_PLURAL)) {
      const plural = `${m[0]}`.toLowerCase();
      const singular = `${m[1]}`.toLowerCase();
      // only where the stemmer left the plural alone ("DNAs" → "dnas"), not where it conflates already
      if (singular.length >= 2 && stem(plural, "en") === plural) out.add(stem(singular, "en"));
    }
  for (const m of query.matchAll(HYPHENATED)) {
    const closed = `${m[1]}${m[2]}`.toLowerCase();
    for (const l of langs) out.add(stem(closed, l));
  }
  return [...out];
}
