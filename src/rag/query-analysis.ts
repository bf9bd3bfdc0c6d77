import type { TermStatsStore } from "../store/contract/index.ts";
import { COMPOUNDING, compoundSplits } from "./analyzer/decompound.ts";
import type { TermStats } from "./grounding-gate.ts";
import { analyzeQuery, detectLanguage, type Lang, stem, toLang, wordTokens } from "./terms.ts";
import { writtenVariants } from "./written-variants.ts";

/** What a question's analysis reads from the deployment's statistics. */
export type RetrievalTermStats = Pick<TermStatsStore, "documentFrequencies" | "totalChunks" | "languages">;

/** A question as keyword search and the gate see it (see analyzeForSearch). */
export interface QueryAnalysis {
  /** the question's language: the gate and the composer stem in it */
  lang: Lang;
  /** the question's language, then the deployment's document languages */
  langs: Lang[];
  /** content words (lower-cased as written), a compound the deployment never indexed replaced by its parts */
  words: string[];
  /** the index terms the words may be indexed under that the deployment holds (and their written variants) */
  forms: string[];
  /** document frequencies of every form looked up, and N: the gate's weights come from this snapshot */
  stats: TermStats;
}

/**
 * Which language a question is analyzed in: its own when detection is sure, else the language of most of the
 * deployment's documents (a two-word question to a German deployment is German), else the best guess.
 */
export function questionLanguage(question: string, documentLangs: readonly Lang[]): Lang {
  const d = detectLanguage(question);
  if (d.reliable || documentLangs.length === 0) return d.lang;
  return documentLangs.includes(d.lang) && d.confidence > 0 ? d.lang : (documentLangs[0] as Lang);
}

const langsOf = (codes: readonly string[]): Lang[] => [...new Set(codes.map(toLang).filter((l): l is Lang => l !== null))];

/**
 * Analyzes a question against one deployment: in the question's language and in each language its documents are
 * in, so a name or a number asked in English is found in a German index; document frequencies of every form are
 * read once; a word in a compounding language that the deployment never indexed ("Kündigungsfrist") is replaced
 * by two parts it did index ("Kündigung", "Frist") — or by its last part, the compound's head, alone.
 */
export async function analyzeForSearch(
  stats: RetrievalTermStats,
  deploymentId: string,
  query: string,
  opts: { languages?: readonly string[] } = {},
): Promise<QueryAnalysis> {
  const pinned = langsOf(opts.languages ?? []);
  const documentLangs = pinned.length > 0 ? pinned : langsOf(await stats.languages(deploymentId));
  const lang = questionLanguage(query, documentLangs);
  const langs = [...new Set([lang, ...documentLangs])];
  const analyzed = analyzeQuery(query, langs);
  const folded = (w: string) => wordTokens(w).join("");
  const variants = writtenVariants(query, langs);
  // the words as written too: an index built before the analyzer holds them unstemmed (until it is re-indexed);
  // one lookup for all (a round trip on PostgreSQL; on SQLite a word no index holds costs one B-tree probe)
  const [df, n] = await Promise.all([
    stats.documentFrequencies(deploymentId, [...new Set([...analyzed.flatMap((w) => [...w.forms, folded(w.word)]), ...variants])]),
    stats.totalChunks(deploymentId),
  ]);
  const known = (t: string) => (df.get(t) ?? 0) > 0;
  // a word in a compounding language that the deployment holds in no form may be a compound of words it holds
  // a name written in capitals or with digits ("HISTTIMEOUT", "A5347") is an identifier, never a compound
  const capitals = new Set(query.split(/[^\p{L}\p{N}_]+/u).filter((w) => w.length >= 3 && w === w.toUpperCase()));
  const identifier = (w: string) => /\d/.test(w) || capitals.has(w.toUpperCase());
  const missing = analyzed.filter((w) => !w.forms.some(known) && !known(folded(w.word)) && !identifier(w.word));
  // (an English question's unknown word is no German compound because the deployment also holds German documents)
  const compounding = COMPOUNDING.has(lang);
  const splits = new Map(
    compounding ? missing.map((w) => [w.word, langs.flatMap((l) => compoundSplits(w.word, l).map((s) => ({ ...s, l })))] as const) : [],
  );
  const partForms = [...new Set([...splits.values()].flat().flatMap((s) => [stem(s.head, s.l), stem(s.tail, s.l)]))].filter(
    (t) => !df.has(t),
  );
  if (partForms.length > 0) for (const [t, f] of await stats.documentFrequencies(deploymentId, partForms)) df.set(t, f);
  const words: string[] = [];
  for (const w of analyzed) {
    const candidates = splits.get(w.word);
    if (!candidates) {
      words.push(w.word);
      continue;
    }
    const both = candidates.find((s) => s.head.length >= 4 && known(stem(s.head, s.l)) && known(stem(s.tail, s.l)));
    // the last part alone only when both parts are words of their own length ("Kündigungs|frist", not "Sem|ester")
    const head = candidates.find((s) => s.head.length >= 4 && s.tail.length >= 5 && known(stem(s.tail, s.l)));
    if (both) words.push(both.head, both.tail);
    else if (head) words.push(head.tail);
    else words.push(w.word);
  }
  const forms = [...new Set([...words.flatMap((w) => [...langs.map((l) => stem(w, l)), folded(w)]), ...variants])].filter(known);
  return { lang, langs, words: [...new Set(words)], forms, stats: { documentFrequencies: () => df, totalChunks: () => n } };
}
