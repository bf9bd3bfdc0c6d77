import { analyze } from "./analyze.ts";
import { detectLanguage } from "./detect-language.ts";
import { type Lang, toLang } from "./languages.ts";

/** What the keyword index holds for one chunk: its language and its analyzed terms, space-separated. */
export interface ChunkTerms {
  lang: Lang;
  /** the text's terms, in order, repeats kept (term frequencies count them) */
  terms: string;
  headingTerms: string;
}

/** A chunk must have this many words before its own language can overrule its document's (a mixed document's section). */
const SECTION_WORDS = 30;
const SECTION_CONFIDENCE = 0.5;
/** a section's language shows in its first words; reading more only costs ingest time */
const SECTION_SAMPLE_WORDS = 120;

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
 * Each chunk's language and terms. A chunk long enough to tell, and clearly in another language than its document,
 * is analyzed in its own (a German manual with an English licence section); the rest take the document's.
 */
export function chunkTerms(chunks: { text: string; headingPath: string }[], docLang: Lang, pinned: readonly string[] = []): ChunkTerms[] {
  const candidates = langsOf(pinned);
  return chunks.map((c) => {
    let lang = docLang;
    if (candidates.length !== 1 && c.text.split(/\s+/).length >= SECTION_WORDS) {
      const d = detectLanguage(c.text, { candidates, maxWords: SECTION_SAMPLE_WORDS });
      if (d.reliable && d.confidence >= SECTION_CONFIDENCE) lang = d.lang;
    }
    return { lang, terms: analyze(c.text, lang).join(" "), headingTerms: analyze(c.headingPath, lang).join(" ") };
  });
}
