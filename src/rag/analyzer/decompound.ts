import type { Lang } from "./languages.ts";

/**
 * Languages that write compounds as one word (Mietvertrag, huurcontract, hyresavtal, lejekontrakt, leiekontrakt,
 * vuokrasopimus). A question may join what the documents keep apart ("Kündigungsfrist" for "die Frist … gekündigt"):
 * a question word the deployment never indexed is split into parts it did index (retrieve.ts asks the index).
 */
export const COMPOUNDING: ReadonlySet<Lang> = new Set(["de", "nl", "sv", "da", "no", "fi"]);

/** linking elements between the parts of a compound: Arbeit-s-vertrag, Tag-es-licht, Sonne-n-schein, Kind-er-garten */
const LINKS: Partial<Record<Lang, string[]>> = {
  de: ["s", "es", "n", "en", "e", "er"],
  nl: ["s", "en", "e"],
  sv: ["s", "a", "u", "o", "e"],
  da: ["s", "e"],
  no: ["s", "e"],
  fi: [],
};

const MIN_PART = 3;
const MIN_WORD = 7;

/** The ways `word` (lower-cased) may split into two words, longest tail first: the tail is the compound's head noun. */
export function compoundSplits(word: string, lang: Lang): { head: string; tail: string }[] {
  if (!COMPOUNDING.has(lang) || word.length < MIN_WORD || /\d/.test(word)) return [];
  const out: { head: string; tail: string }[] = [];
  for (let i = MIN_PART; i <= word.length - MIN_PART; i++) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    out.push({ head, tail });
    for (const link of LINKS[lang] ?? [])
      if (head.endsWith(link) && head.length - link.length >= MIN_PART) out.push({ head: head.slice(0, -link.length), tail });
  }
  return out.sort((a, b) => b.tail.length - a.tail.length || b.head.length - a.head.length);
}
