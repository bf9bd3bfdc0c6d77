import { queryTerms, stem } from "../rag/terms.ts";
import type { GapCandidate } from "../store/contract/index.ts";
import { normaliseQuestion } from "../visitor/normalise-question.ts";

export interface GapGroup {
  /** the stemmed terms the group shares, most telling first: its key */
  terms: string[];
  /** the same terms as visitors wrote them (each stem's most used word), for people to read */
  words: string[];
  questions: GapCandidate[];
  /** count weighted by age (a question from today counts 1, one from a month ago 1/2): the ranking */
  weight: number;
  lastAt: number;
}

/** A question's weight halves every HALF_LIFE_DAYS: "how many" and "how recent" in one number. */
const HALF_LIFE_DAYS = 30;
const DAY_MS = 86_400_000;
/** A term joins a group's label when this share of its questions use it. */
const LABEL_SHARE = 0.5;

const keyTerms = (question: string) => [...new Set(queryTerms(question).map((w) => stem(w)))];

/**
 * Groups gap questions by what they ask, offline, with the analyzer's terms (rag/terms): repeatedly takes the
 * term that covers the most not-yet-grouped questions, weighted by how telling it is across everything asked
 * (its IDF over `allQuestions`: "price" in every question says less than "parking"), and makes the questions
 * that use it a group. A question left with no shared term is a group of its own wording. Deterministic.
 */
export function groupGaps(
  candidates: GapCandidate[],
  opts: { now: number; askedTotal: number; termCounts: Map<string, number> },
): GapGroup[] {
  const termsOf = new Map(candidates.map((c) => [c.id, keyTerms(c.question)]));
  const idf = (t: string) => Math.log(1 + opts.askedTotal / (1 + (opts.termCounts.get(t) ?? 0)));
  const open = new Set(candidates.map((c) => c.id));
  const byId = new Map(candidates.map((c) => [c.id, c]));
  const groups: GapGroup[] = [];
  for (;;) {
    const cover = new Map<string, number[]>();
    for (const id of open) for (const t of termsOf.get(id) ?? []) cover.set(t, [...(cover.get(t) ?? []), id]);
    let best: { term: string; score: number; ids: number[] } | null = null;
    for (const [term, ids] of cover) {
      if (ids.length < 2) continue;
      const score = ids.length * idf(term);
      if (!best || score > best.score || (score === best.score && term < best.term)) best = { term, score, ids };
    }
    if (!best) break;
    for (const id of best.ids) open.delete(id);
    groups.push(
      makeGroup(
        best.ids.map((id) => byId.get(id) as GapCandidate),
        best.term,
        termsOf,
        opts.now,
      ),
    );
  }
  // what is left shares no term with another question: grouped by identical wording only
  const alone = new Map<string, GapCandidate[]>();
  for (const id of open) {
    const c = byId.get(id) as GapCandidate;
    const k = normaliseQuestion(c.question) || String(c.id);
    alone.set(k, [...(alone.get(k) ?? []), c]);
  }
  for (const qs of alone.values()) groups.push(makeGroup(qs, (termsOf.get(qs[0]?.id ?? 0) ?? [])[0] ?? "", termsOf, opts.now));
  return groups.sort((a, b) => b.weight - a.weight || b.lastAt - a.lastAt);
}

function makeGroup(questions: GapCandidate[], key: string, termsOf: Map<number, string[]>, now: number): GapGroup {
  const counts = new Map<string, number>();
  for (const q of questions) for (const t of termsOf.get(q.id) ?? []) if (t !== key) counts.set(t, (counts.get(t) ?? 0) + 1);
  const extra = [...counts]
    .filter(([, n]) => n >= questions.length * LABEL_SHARE && questions.length > 1)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([t]) => t)
    .slice(0, 3);
  const sorted = [...questions].sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
  const terms = key ? [key, ...extra] : extra;
  return {
    terms,
    words: terms.map((t) => surfaceOf(t, questions)),
    questions: sorted,
    weight: questions.reduce((w, q) => w + 0.5 ** (Math.max(0, now - q.createdAt) / DAY_MS / HALF_LIFE_DAYS), 0),
    lastAt: sorted[0]?.createdAt ?? 0,
  };
}

/** The word visitors used most for a stem ("parking" for park, "free" for fre). */
function surfaceOf(term: string, questions: GapCandidate[]): string {
  const n = new Map<string, number>();
  for (const q of questions) for (const w of queryTerms(q.question)) if (stem(w) === term) n.set(w, (n.get(w) ?? 0) + 1);
  return [...n].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? term;
}

/** How many of `questions` use each stemmed term: the IDF base for groupGaps. */
export function countTerms(questions: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const q of questions) for (const t of keyTerms(q)) out.set(t, (out.get(t) ?? 0) + 1);
  return out;
}
