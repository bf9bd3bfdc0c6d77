import { LENGTH_PAD } from "../../store/contract/chunk-index.contract.ts";
import { analyze, analyzeCounting } from "./analyze.ts";
import { detectLanguage } from "./detect-language.ts";
import { type Lang, toLang } from "./languages.ts";
import { plainWords } from "./normalise.ts";

/** What the keyword index holds for one chunk: its language and its analyzed terms, space-separated. */
export interface ChunkTerms {
  lang: Lang;
  /** the text's terms, in order, repeats kept (term frequencies count them), then a LENGTH_PAD for each dropped word */
  terms: string;
  headingTerms: string;
}

/** A chunk must have this many words before its own language can overrule its document's (a mixed document's section). */
const SECTION_WORDS = 30;
const SECTION_CONFIDENCE = 0.5;
/** a section's language shows in its first words; reading more only costs ingest time */
const SECTION_SAMPLE_WORDS = 120;
/** below this share of the document language's stop words, a section may be in another language */
const SECTION_STOP_SHARE = 0.15;

const langsOf = (codes: readonly string[]): Lang[] => [...new Set(codes.map(toLang).filter((l): l is Lang => l !== null))];

/**
 * A document's language from a sample of its text: the owner's one pinned language, else the detected one among
 * the pinned (or all) languages.
 */
export function documentLanguage(sample: string, pinned: readonly string[] = []): Lang {
  const candidates = langsOf(pinned);
  return detectLanguage(sample, { candidates }).lang;
}

/**
 * documentLanguage() of the chunks' texts joined by "\n", then chunkTerms() in that language, with each chunk split
 * into words once for both when that gives the same words (plainWords: no symbol, no segmenter, not Turkish): a
 * bulk load's small documents spent a sixth of their analysis splitting the same text twice.
 */
export function documentTerms(chunks: { text: string; headingPath: string }[], pinned: readonly string[] = []): ChunkTerms[] {
  const text = chunks.map((c) => c.text).join("\n");
  const words = chunks.map((c) => plainWords(c.text));
  if (!words.every((w): w is string[] => w !== null)) return chunkTerms(chunks, documentLanguage(text, pinned), pinned);
  const lang = detectLanguage(text, { candidates: langsOf(pinned) }, () => words.flat()).lang;
  return chunkTerms(chunks, lang, pinned, lang === "tr" ? undefined : words);
}

/**
 * Chunks of several documents re-analyzed together (keyword reindex, db copy): each document's language is the
 * owner's pinned one, else the one it was analyzed in before, else detected from its chunks here.
 */
export function reanalyze(
  chunks: { documentId: string; text: string; headingPath: string; lang: string | null }[],
  pinned: readonly string[] = [],
): ChunkTerms[] {
  const docs = new Map<string, typeof chunks>();
  for (const c of chunks) docs.set(c.documentId, [...(docs.get(c.documentId) ?? []), c]);
  const out = new Map<(typeof chunks)[number], ChunkTerms>();
  for (const group of docs.values()) {
    const known = pinned.length === 0 ? group.map((c) => toLang(c.lang ?? "")).find((l) => l !== null) : undefined;
    const lang = known ?? documentLanguage(group.map((c) => c.text).join("\n"), pinned);
    // chunks analyzed before keep their language: what a section was, it still is
    const fresh = chunkTerms(group, lang, pinned);
    group.forEach((c, i) => {
      const before = pinned.length === 0 ? toLang(c.lang ?? "") : null;
      out.set(c, before && before !== lang ? (chunkTerms([c], before, [before])[0] as ChunkTerms) : (fresh[i] as ChunkTerms));
    });
  }
  return chunks.map((c) => out.get(c) as ChunkTerms);
}

/**
 * Each chunk's language and terms. A chunk long enough to tell, and clearly in another language than its document,
 * is analyzed in its own (a German manual with an English licence section); the rest take the document's.
 */
export function chunkTerms(
  chunks: { text: string; headingPath: string }[],
  docLang: Lang,
  pinned: readonly string[] = [],
  /** each chunk's words in docLang, when in hand (documentTerms) */
  words?: readonly (readonly string[])[],
): ChunkTerms[] {
  const candidates = langsOf(pinned);
  return chunks.map((c, i) => {
    let lang = docLang;
    let text = analyzeCounting(c.text, lang, words?.[i]);
    // a section in the document's language is full of its function words; only one that is not is looked at again
    if (candidates.length !== 1 && text.words >= SECTION_WORDS && text.stops < text.words * SECTION_STOP_SHARE) {
      const d = detectLanguage(c.text, { candidates, maxWords: SECTION_SAMPLE_WORDS });
      if (d.reliable && d.confidence >= SECTION_CONFIDENCE && d.lang !== lang) {
        lang = d.lang;
        text = analyzeCounting(c.text, lang);
      }
    }
    const pads = Array<string>(text.words - text.terms.length).fill(LENGTH_PAD);
    return { lang, terms: [...text.terms, ...pads].join(" "), headingTerms: analyze(c.headingPath, lang).join(" ") };
  });
}
