import { analyze, chunkTerms, type Lang } from "../../src/rag/terms.ts";

/**
 * A chunk as training writes it: with its language and analyzed terms (rag/analyzer), for tests and benchmarks that
 * insert chunks into an index directly. English unless told.
 */
export function withTerms<C extends { text: string; headingPath: string }>(
  c: C,
  lang: Lang = "en",
): C & { lang: string; terms: string; headingTerms: string } {
  return { ...c, ...(chunkTerms([c], lang, [lang])[0] as { lang: string; terms: string; headingTerms: string }) };
}

/** A visitor's words as keyword search looks them up (English analysis). */
export const searched = (text: string): string[] => [...new Set(analyze(text, "en"))];
