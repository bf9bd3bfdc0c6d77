import { estimateTokens, truncateToTokens } from "../llm/estimate-tokens.ts";
import { CARD_KEYWORDS } from "../shared/document-card-labels.ts";
import { scoreUnits } from "./answer-units.ts";
import { kindStems } from "./focus-kinds.ts";
import { type QuestionShape, questionShape } from "./question-shape.ts";
import { segmentPassage, type TextUnit } from "./sentences.ts";
import { detectLanguage, type Lang, langOf, queryTerms, stem, stemSet, withLang, wordTokens } from "./terms.ts";

/**
 * The extractive answer: the sentences (or CSV rows, list items) of the best passages that answer the
 * question, never whole chunks. One document answers unless the question needs another (its words are only
 * there); a heading is never part of an answer sentence; no sentence twice; CSV rows read as "Column: value".
 */
export interface ComposePassage {
  text: string;
  source: string;
  headingPath?: string;
}

export interface ComposedAnswer {
  text: string;
  /** indexes of the passages the answer quotes (for honest `sources`) */
  used: number[];
  truncated: boolean;
}

export const DEFAULT_MAX_SENTENCES = 3;
/** Further sentences must carry this share of the best one's score: one shared word makes noise, not an answer. */
const MIN_RELATIVE_SCORE = 0.8;
/** the lowest share of the best score a complementary sentence may have */
const COMPLEMENT_SCORE = 0.5;
const OTHER_PASSAGE_SCORE = 0.9;
/** Only the best few passages are read: lower ones are what the ranking doubted. */
const MAX_PASSAGES = 4;
const SOFT_MAX_TOKENS = 160;
/** sentence openings that carry on from the sentence before */
const CONTINUES = /^(it|its|they|their|them|this|these|those|he|his|she|her|but|however|yet|so|thus|there|then|in turn)\b/i;

interface Candidate {
  unit: TextUnit;
  passage: number;
  score: number;
  terms: Set<string>;
  /** the unit opens the entry its passage is under, naming it ("-e (set -e): …", "HISTSIZE: …"), or is a field under the label asked for */
  defining?: boolean;
}

/** A row or a form's field whose label names what is asked ("Age: 1 Year 9 Months" for "How old …?"). */
function labelAsked(unit: TextUnit, asks: Set<string>, lang: Lang): boolean {
  if (unit.kind !== "row" || asks.size === 0) return false;
  const labels = unit.text.split("; ").map((cell) => cell.slice(0, Math.max(0, cell.indexOf(": "))));
  return labels.some((l) => [...stemSet(l, lang)].some((t) => asks.has(t)));
}

/** Whether a unit starts with the name of the entry (the last heading) its passage is under, and the question asks about it. */
function definesEntry(unit: TextUnit, headingPath: string, weights: Map<string, number>): boolean {
  const entry = headingPath.split(" > ").at(-1)?.trim() ?? "";
  if (!entry || entry.length > 40 || !headingPath.includes(" > ") || !unit.text.startsWith(entry)) return false;
  if (!/^(?:$|[\s:(])/.test(unit.text.slice(entry.length))) return false;
  return [...stemSet(entry, langOf(weights))].some((t) => weights.has(t));
}

const normalise = (s: string) => wordTokens(s).join(" ");

/** Weights for the question's terms: the deployment's IDF when the retriever gave them, else IDF over the passages. */
function questionWeights(question: string, passages: ComposePassage[], given?: Map<string, number>, lang?: Lang): Map<string, number> {
  if (given && given.size > 0) return given;
  const l = lang ?? detectLanguage(question).lang;
  // the question's content words only: "the", "what" and "is" must not pick sentences
  const terms = [...new Set(queryTerms(question, 32, l).map((w) => stem(w, l)))];
  const sets = passages.map((p) => stemSet(p.text, l));
  return withLang(new Map(terms.map((t) => [t, Math.log(1 + passages.length / Math.max(1, sets.filter((s) => s.has(t)).length))])), l);
}

/**
 * A CSV row as readable "Column: value" lines, without empty cells, auto-named columns or spreadsheet
 * formulas. When the question names columns of a wide row ("the total for Alaska"), only the cells that
 * identify the row (their values match the question) and the cells asked for are shown.
 */
/** a row with nothing asked of it shows at most this many cells */
const MAX_ROW_CELLS = 8;
/** a cell whose value is a count or an amount, not a date or a code */
const NUMERIC_CELL = /^[$€£]?\s*\d{1,3}(,\d{3})*(\.\d+)?$|^[$€£]?\s*\d+(\.\d+)?$/;

export function formatRow(row: string, questionTerms?: Set<string>, wantsNumber = false, lang?: Lang): string {
  const cells = row
    .split("; ")
    .map((pair) => {
      const i = pair.indexOf(": ");
      return i < 0 ? null : { key: pair.slice(0, i).trim(), value: pair.slice(i + 2).trim() };
    })
    .filter(
      (p): p is { key: string; value: string } =>
        p !== null && p.value !== "" && !p.value.startsWith("=") && !/^column \d+$/i.test(p.key) && p.key !== CARD_KEYWORDS,
    );
  const matches = (text: string) => (questionTerms ? [...stemSet(text, lang)].filter((t) => questionTerms.has(t)).length : 0);
  // the two cells whose values name the row best ("title: Metropolis (1927)"), and the columns asked for, whose
  // names may be camelCase or snake_case ("ratingCount", "nrOfWins")
  const identifying = cells
    .map((c) => ({ c, n: matches(c.value) }))
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n)
    .slice(0, 2)
    .map((x) => x.c);
  const keyMatches = new Map(
    cells
      .filter((c) => !identifying.includes(c))
      .map((c) => [c, matches(c.key.replace(/([\p{Ll}\d])(\p{Lu})/gu, "$1 $2").replaceAll("_", " "))]),
  );
  // the columns that match the question best ("Montgomery GI Bill-Active Duty", not "… Selective Reserve")
  const bestKey = Math.max(0, ...keyMatches.values());
  const asked = cells.filter((c) => (keyMatches.get(c) ?? 0) > 0 && (keyMatches.get(c) ?? 0) >= bestKey - 1);
  // a "how many" asked in other words than the column's name ("workers" for "No. Of Employees"): the numbers show
  const numeric =
    wantsNumber && ![...identifying, ...asked].some((c) => NUMERIC_CELL.test(c.value))
      ? cells.filter((c) => NUMERIC_CELL.test(c.value) && !identifying.includes(c)).slice(0, 3)
      : [];
  const shown =
    cells.length > 4 && identifying.length > 0 && asked.length + numeric.length > 0
      ? cells.filter((c) => identifying.includes(c) || asked.includes(c) || numeric.includes(c))
      : cells.slice(0, MAX_ROW_CELLS);
  return shown.map((p) => `${p.key}: ${p.value}`).join("\n");
}

export function composeAnswer(input: {
  passages: ComposePassage[];
  question: string;
  maxTokens: number;
  weights?: Map<string, number>;
  maxSentences?: number;
  /** words the answer must mention besides the question's focus (see questionShape) */
  mustMention?: string[];
  /** the question's language when no weights come with it (detected otherwise) */
  lang?: Lang;
}): ComposedAnswer {
  const passages = input.passages.slice(0, MAX_PASSAGES);
  const weights = questionWeights(input.question, passages, input.weights, input.lang);
  const shape = questionShape(input.question, input.mustMention);
  const scored = scoreUnits(
    weights,
    input.question,
    shape,
    passages.map((p) => ({ text: p.text, source: p.source, headingPath: p.headingPath ?? "" })),
  );
  // earlier passages ranked higher: ties go to them — except to an entry's own definition ("-e (set -e): Exit
  // immediately …"), which answers "what does -e do?" better than any later sentence that mentions it as often
  const asks = new Set([...shape.focus.flat(), ...(shape.focusKind ? kindStems(shape.focusKind) : [])]);
  const candidates: Candidate[] = scored.map((u) => {
    const defining = definesEntry(u.unit, passages[u.passage]?.headingPath ?? "", weights) || labelAsked(u.unit, asks, langOf(weights));
    return { unit: u.unit, passage: u.passage, score: u.score * (1 - (defining ? 0 : u.passage * 0.02)), terms: u.terms, defining };
  });
  const ranked = candidates
    .filter((c) => c.score > 0)
    .sort(
      (a, b) => b.score - a.score || Number(b.defining) - Number(a.defining) || a.passage - b.passage || a.unit.position - b.unit.position,
    );
  const first = ranked[0] ?? candidates[0];
  if (!first) return { text: "", used: [], truncated: false };

  const asked = new Set(weights.keys());
  const render = (c: Candidate) =>
    c.unit.kind === "row"
      ? formatRow(c.unit.text, asked, shape.kind === "number", langOf(weights))
      : trimLongSentence(c.unit.text, weights, shape, input.question);
  const maxSentences = input.maxSentences ?? DEFAULT_MAX_SENTENCES;
  // a few sentences read as an answer; more read as a page (max_tokens still bounds the first one)
  const softTokens = Math.min(input.maxTokens, SOFT_MAX_TOKENS);
  const chosen: Candidate[] = [first];
  const seen = new Set([normalise(first.unit.text)]);
  const coveredTerms = new Set(first.terms);
  const primary = passages[first.passage]?.source;
  let used = estimateTokens(render(first));
  for (const c of ranked.slice(1)) {
    if (chosen.length >= maxSentences || c.score < first.score * COMPLEMENT_SCORE) break;
    // below the bar, a sentence of the same passage still joins when it brings question words the answer lacks
    // ("when is the office open OR CLOSED?")
    const brings = [...weights.keys()].some((t) => c.terms.has(t) && !coveredTerms.has(t));
    if (c.score < first.score * MIN_RELATIVE_SCORE && !(brings && c.passage === first.passage)) continue;
    // another passage (another section, another notice in the same file) must match nearly as well
    if (c.passage !== first.passage && c.score < first.score * OTHER_PASSAGE_SCORE) continue;
    // a field under the label asked for ("Age: 1 Year 9 Months") or an entry's definition is the answer: another
    // unit joins only when it is one too, or goes on in the same passage with a word of the question it lacks
    if (first.defining && !c.defining && !(brings && c.passage === first.passage)) continue;
    const key = normalise(c.unit.text);
    if (seen.has(key)) continue;
    // another document only when it brings question words the answer does not have yet
    const otherDoc = passages[c.passage]?.source !== primary;
    if (otherDoc && ![...weights.keys()].some((t) => c.terms.has(t) && !coveredTerms.has(t))) continue;
    // rows answer one at a time: a second row only when it matches as well as the first
    if (c.unit.kind === "row" && c.score < first.score * 0.9) continue;
    const cost = estimateTokens(render(c));
    if (used + cost > softTokens) continue;
    chosen.push(c);
    seen.add(key);
    for (const t of c.terms) coveredTerms.add(t);
    used += cost;
  }
  // A sentence that goes on about the best one ("It in turn evolved into…", "But a storm dispersed the fleet.")
  // often holds the answer itself without repeating the question's words: it follows the best one when room is left.
  const next = candidates.find((c) => c.passage === first.passage && c.unit.position === first.unit.position + 1);
  if (next && next.unit.kind === "sentence" && CONTINUES.test(next.unit.text) && !chosen.includes(next) && chosen.length < maxSentences) {
    const cost = estimateTokens(render(next));
    if (used + cost <= softTokens && !seen.has(normalise(next.unit.text))) chosen.push(next);
  }
  // (an entry's definition leads: what the entry is comes before what else is said of it)
  chosen.sort((a, b) => Number(b.defining) - Number(a.defining) || a.passage - b.passage || a.unit.position - b.unit.position);
  const text = withTerm(joinUnits(chosen, render), chosen[0] ?? first, passages);
  const usedPassages = [...new Set(chosen.map((c) => c.passage))];
  if (estimateTokens(text) <= input.maxTokens) return { text, used: usedPassages, truncated: false };
  return { text: truncateToTokens(text, input.maxTokens), used: usedPassages, truncated: true };
}

/**
 * A heading that is a defined term — "-e", "HISTSIZE", "set", "set [-abefhkmnptuvxBCEHPT]" — not a section title
 * ("Support hours", "Basics"): one word in capitals, in lower case or with symbols, perhaps followed by its syntax.
 */
const TERM_HEADING = /^(?:[-$%@]*[\p{Lu}\d_]+|[-$%@]*[\p{Ll}\d_][\p{Ll}\d_-]*|\S*[-$_@%.]\S*)(?:\s+[[{<(-]\S*){0,2}$/u;

/**
 * A definition answered without its term reads as a riddle ("If set, the history list is appended …"): when the
 * answer starts at the first sentence under a term-like heading, the term leads it ("histappend: If set, …").
 */
function withTerm(text: string, first: Candidate, passages: ComposePassage[]): string {
  if (first.unit.kind === "row") return text;
  const units = segmentPassage(passages[first.passage]?.text ?? "");
  const before = units.filter((u) => u.position < first.unit.position);
  const local = before.at(-1);
  let term: string | undefined;
  if (local?.kind === "heading") term = local.text;
  else if (before.length === 0) term = passages[first.passage]?.headingPath?.split(" > ").at(-1);
  term = term?.replace(/[:：]\s*$/, "").trim();
  // the parser may have written the term at the start already ("pipefail (set -o pipefail): If set, …")
  if (!term || term.length > 40 || !TERM_HEADING.test(term) || text.slice(0, 80).toLowerCase().includes(term.toLowerCase())) return text;
  return `${term}: ${text}`;
}

/** Past this many words a sentence reads as a page: it is cut to the clauses that hold the question's words. */
const LONG_SENTENCE_WORDS = 35;

/**
 * A long sentence (a novel's, a regulation's) cut to the clauses that answer: clauses end at ";", ":" and dashes,
 * each is scored like a unit, and the best one is kept with its neighbour when that stays short. The cut is
 * marked with "…", so what is quoted is still verbatim.
 */
function trimLongSentence(text: string, weights: Map<string, number>, shape: QuestionShape, question: string): string {
  if (text.split(/\s+/).length <= LONG_SENTENCE_WORDS) return text;
  const clauses = text
    .split(/(?<=[;:])\s+|\s+(?=[—–]\s)|(?<=\s[—–])\s+|(?<=,)\s+(?=(?:and|but|so|which|while|whereas|although|though|because|when|where)\s)/)
    .filter((c) => c.trim() !== "");
  if (clauses.length < 2) return text;
  const scored = scoreUnits(weights, question, { ...shape, focus: [] }, [{ text: clauses.join("\n\n"), source: "", headingPath: "" }]);
  const best = scored.reduce<{ i: number; s: number }>((b, u, i) => (u.score > b.s ? { i, s: u.score } : b), { i: -1, s: 0 });
  if (best.i < 0 || scored.length !== clauses.length) return text;
  let from = best.i;
  let to = best.i;
  const words = (a: number, b: number) =>
    clauses
      .slice(a, b + 1)
      .join(" ")
      .split(/\s+/).length;
  if (to + 1 < clauses.length && words(from, to + 1) <= LONG_SENTENCE_WORDS) to++;
  if (from > 0 && words(from - 1, to) <= LONG_SENTENCE_WORDS) from--;
  const kept = clauses.slice(from, to + 1).join(" ");
  return `${from > 0 ? "… " : ""}${kept}${to < clauses.length - 1 ? " …" : ""}`;
}

/** Sentences of one passage run on as prose; rows, items and a new passage start on their own line. */
function joinUnits(chosen: Candidate[], render: (c: Candidate) => string): string {
  let out = "";
  for (const [i, c] of chosen.entries()) {
    const prev = chosen[i - 1];
    const text = render(c);
    if (!prev) out = text;
    else if (c.unit.kind === "sentence" && prev.unit.kind === "sentence" && prev.passage === c.passage) out += ` ${text}`;
    else out += c.unit.kind === "row" || prev.unit.kind === "row" ? `\n\n${text}` : `\n${text}`;
  }
  return out;
}
