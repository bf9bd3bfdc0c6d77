import { bestScore, type GateLexicon, scoreUnits } from "./answer-units.ts";
import { questionShape } from "./question-shape.ts";
import { DEFAULT_LANG, type Lang, langOf, stem, stemSet, type TermWeights, withLang } from "./terms.ts";

/**
 * The grounding gate looks for an answer, not a topic. Coverage = Σ idf(query terms a text mentions, in any
 * suffix form) / Σ idf(all query terms): rare words carry the question ("Huguenots", "endowment"), and a term
 * absent from the deployment gets the largest weight, which is what makes out-of-corpus questions fall short.
 *  - A question ("When was…", "How many…?") is answerable when ONE sentence of a passage (with the passage's
 *    document name and heading path) covers it, and that sentence holds the kind of answer asked for (a date
 *    for "when", a number for "how many", a name for "who"/"where"). Words scattered over a passage only show
 *    the topic is there, not the answer.
 *  - A statement or keyword query (a claim to check, "refund policy annual plan") is judged on the whole passage,
 *    and sharing rare words worth EVIDENCE_MASS nats of IDF earns EVIDENCE_BONUS: technical wording rarely
 *    repeats a claim's words, but a passage that shares its rarest ones is about it. Its words the deployment
 *    holds nowhere weigh ABSENT_CLAIM_SHARE.
 * Measured in bench/answers.bench.ts (SQuAD 2.0 and SciFact). With vectors, calibrated cosine is blended in.
 */
/** One deployment's statistics: every weight the gate uses comes from that deployment's own documents. */
export interface TermStats {
  documentFrequencies(deploymentId: string, terms: string[]): Map<string, number>;
  totalChunks(deploymentId: string): number;
}

export type { TermWeights };

/** A word's index terms: its stem in each analysis language, the first language's (the key the gate weighs) first. */
export const termForms = (word: string, langs: readonly Lang[]): string[] => [...new Set(langs.map((l) => stem(word, l)))];

/**
 * BM25's IDF, never negative. The weights are keyed by each word's term in the question's language (`langs[0]`);
 * a word's frequency is the largest of its terms' in every analysis language, since the index holds each document's
 * words as its own language stems them. The corpus size is floored at `minCorpus` chunks: in a deployment of a few
 * chunks every word it contains would otherwise weigh almost nothing and any one word it lacks would outweigh the
 * whole question.
 */
export function termWeights(
  deploymentId: string,
  terms: string[],
  stats: TermStats,
  minCorpus = 0,
  langs: readonly Lang[] = [DEFAULT_LANG],
): TermWeights {
  const lang = langs[0] ?? DEFAULT_LANG;
  const n = Math.max(1, minCorpus, stats.totalChunks(deploymentId));
  const forms = new Map(terms.map((t) => [t, termForms(t, langs)]));
  const df = stats.documentFrequencies(deploymentId, [...new Set([...terms, ...[...forms.values()].flat()])]);
  const weights = withLang(new Map(), lang);
  const absent = new Set<string>();
  for (const t of terms) {
    const key = stem(t, lang);
    const f = Math.min(n, Math.max(df.get(t) ?? 0, ...(forms.get(t) ?? []).map((x) => df.get(x) ?? 0)));
    if (f === 0) absent.add(key);
    weights.set(key, Math.max(weights.get(key) ?? 0, Math.log(1 + (n - f + 0.5) / (f + 0.5))));
  }
  return Object.assign(weights, { absent });
}

/** IDF-weighted share of the question's terms that the passage mentions (0..1). */
export function termCoverage(weights: TermWeights, passage: string): number {
  let total = 0;
  for (const w of weights.values()) total += w;
  if (total === 0) return 0;
  const present = stemSet(passage, langOf(weights));
  let covered = 0;
  for (const [t, w] of weights) if (present.has(t)) covered += w;
  return covered / total;
}

export const EVIDENCE_MASS = 8;
export const EVIDENCE_BONUS = 0.15;
/**
 * A statement's word that no document of the deployment holds in any form counts this share of its weight: in a
 * claim it is as often the documents' subject written another way (a misspelling, "Qβ" for "Qbeta", a coined
 * abbreviation) as a subject they lack. A question's absent word keeps its whole weight.
 */
export const ABSENT_CLAIM_SHARE = 0.5;

export interface GatePassage {
  text: string;
  source: string;
  headingPath: string;
}

export type { GateLexicon };

/** How well one passage answers `query` (0..1); see the module comment and answer-units.ts. */
export function answerability(
  weights: TermWeights,
  query: string,
  passage: GatePassage,
  lexicon?: GateLexicon,
  mustMention: string[] = [],
): number {
  const shape = questionShape(query, mustMention);
  if (!shape.question) {
    let total = 0;
    for (const [t, w] of weights) total += weights.absent?.has(t) ? w * ABSENT_CLAIM_SHARE : w;
    if (total === 0) return 0;
    const lang = langOf(weights);
    const sets = [stemSet(`${passage.source}\n${passage.headingPath}`, lang), stemSet(passage.text, lang)];
    let mass = 0;
    for (const [t, w] of weights) {
      if (sets.some((s) => s.has(t)) || (lexicon && [...lexicon.synonyms(t)].some((x) => sets.some((s) => s.has(x)))))
        mass += w * (sets.some((s) => s.has(t)) ? 1 : (lexicon?.synonymWeight ?? 0));
    }
    return Math.min(1, mass / total + (mass >= EVIDENCE_MASS ? EVIDENCE_BONUS : 0));
  }
  return bestScore(scoreUnits(weights, query, shape, [passage], lexicon));
}
/**
 * The answerability of each passage (0..1), judged together: a question's units are scored across all of them (a
 * document card is credited with its document's words found in the others), a statement's passage by passage.
 */
export function passagesAnswerability(weights: TermWeights, query: string, passages: GatePassage[], mustMention: string[] = []): number[] {
  const shape = questionShape(query, mustMention);
  if (!shape.question) return passages.map((p) => answerability(weights, query, p));
  const best = passages.map(() => 0);
  for (const u of scoreUnits(weights, query, shape, passages)) best[u.passage] = Math.max(best[u.passage] ?? 0, u.score);
  return best;
}

/** Maps an embedder's cosine similarities onto 0..1: `low` and below is unrelated, `high` and above is on-topic. */
export interface CosineCalibration {
  low: number;
  high: number;
  /** share of the relevance that comes from the cosine (the rest is term coverage) */
  weight: number;
}

export function blendRelevance(coverage: number, cosine: number | undefined, cal: CosineCalibration | null): number {
  if (cosine === undefined || !cal || cal.weight <= 0) return coverage;
  const c = Math.min(1, Math.max(0, (cosine - cal.low) / (cal.high - cal.low)));
  return (1 - cal.weight) * coverage + cal.weight * c;
}

export function isGrounded(relevance: number, threshold: number): boolean {
  return relevance >= threshold && relevance > 0;
}
