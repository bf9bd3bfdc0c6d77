import { CARD_HEADING } from "../shared/document-card-labels.ts";
import { holdsAnswerType, numbersIn } from "./answer-type.ts";
import { holdsFocusKind } from "./focus-kinds.ts";
import { NEGATION, type QuestionShape } from "./question-shape.ts";
import { segmentPassage, type TextUnit } from "./sentences.ts";
import { langOf, stem, stemSet, stemTokens, wordTokens } from "./terms.ts";

/**
 * The units that can answer a question — sentences, list items, table and CSV rows — scored the same way for the
 * grounding gate (is there an answer?) and the composer (which words answer?), so the sentence the gate believed
 * in is the one the visitor reads. A unit's score is the IDF-weighted share of the question's terms it holds:
 *  - in its own words (full credit), in its passage's document name and heading path or a heading just above it
 *    in the passage (full credit: "EXIT STATUS" over "… returns 127"), or in the sentence before or after it
 *    (NEIGHBOUR credit: a pronoun carries the subject over);
 *  - halved when it holds fewer than two of the question's words itself (one shared word is a coincidence);
 *  - zero when the question asks for a number or a date and the unit has none the question did not bring;
 *    reduced when it asks for a name, a place or a reason and the unit holds none;
 *  - reduced when the question has a focus ("the CAPTAIN of …") that the unit and its surroundings never mention.
 */
export interface UnitPassage {
  text: string;
  source: string;
  headingPath: string;
}

/**
 * Optional word knowledge, keyed by stemmed term: a synonym found counts `synonymWeight` of the word, an antonym
 * found where the word is missing rules the unit out. None ships by default: WordNet was measured and did not earn
 * its place (BENCHMARKS.md, "Answers: a lexical resource for the gate").
 */
export interface GateLexicon {
  synonyms(term: string): ReadonlySet<string>;
  antonyms(term: string): ReadonlySet<string>;
  synonymWeight: number;
}

export interface ScoredUnit {
  passage: number;
  unit: TextUnit;
  score: number;
  /** stems of the unit's own words */
  terms: Set<string>;
}

const NEIGHBOUR = 0.5;
/** letters and digits in one word: a study, a model, a form, a fiscal year */
const IDENTIFIER = /^(?=.*\d)(?=.*\p{L})[\p{L}\d]+$/u;
/** a version or a numbered section, matched as written: "5.3", "9.2.1" */
const DOTTED_NUMBER = /(?<![\d.])\d+(?:\.\d+)+(?![\d.]*\d)/g;
/** languages that capitalise every noun: a capital is no sign of a name there */
const NOUNS_CAPITALISED = new Set(["de"]);
/**
 * a yes/no question may name what the documents leave out: "Is the counter open on Sunday?" is answered by "open
 * Monday to Saturday"
 */
const YES_NO = /^\s*(is|are|was|were|do|does|did|can|could|will|would|should|has|have|had|may|must)\b/i;
/** a question in title case ("What Is The Primary Endpoint") says nothing by its capitals */
const TITLE_CASE_SHARE = 0.6;
/** a book's index ("Stichwortverzeichnis": "Gauß-Bonnet, 98 inverser, 48 …") names where things are, not what they are */
const BOOK_INDEX = 0.5;
const INDEX_HEADING =
  /(^|> )(index|indexes|subject index|stichwortverzeichnis|sachverzeichnis|sachregister|register|index alphabétique|índice alfabético|índice|indice analitico|indice)$/i;
const PAGE_REFERENCES = /[\p{L})]\s*,\s*\d{1,4}(?=[\s,]|$)/gu;
const isIndexListing = (headingPath: string, text: string) =>
  INDEX_HEADING.test(headingPath.trim()) && (text.match(PAGE_REFERENCES)?.length ?? 0) >= 3;
/** a row none of whose values the question names is some other record */
const UNIDENTIFIED_ROW = 0.5;
const ROW_KEYS = /(^|; )[^:;]*: /g;
/**
 * Words that ask about a document itself — who wrote it, when it came out — which its card answers. A question asks
 * about its document when it holds one as written: "When was it updated?" does, "what does it cost to update the
 * list?" and "How do I create a user?" ask how to do something. A card's field then counts for each of their stems
 * the question holds (stemmed on first use: stemming loads the English stemmer, which no start should wait for).
 */
const DOCUMENT_FACT_WORDS = new Set(
  "author authors wrote written writer publish published publication publisher posted released release version edition title credited credits produced copyright created updated".split(
    " ",
  ),
);
let documentFacts: Set<string> | undefined;
const documentFactStems = () => (documentFacts ??= new Set([...DOCUMENT_FACT_WORDS].map((w) => stem(w))));
const LONE_WORD = 0.5;
const CARD_ELSEWHERE = 0.6;
const SOFT_TYPE_MISS = 0.7;
const FOCUS_MISS = 0.4;
/** an instance of the class asked for seldom names the class ("comfits" for "What sweets …?") */
const CLASS_MISS = 0.7;
const NAMES_ONLY = 0.5;
/**
 * a count is often written apart from what it counts ("refugees, an estimated 75,000 to 100,000 people", "Four thousand
 * emigrated"): a unit that counts nothing of what is asked, where another does, weighs less, but less so than a focus missed
 */
const COUNT_MISS = 0.6;
/** a why-question answered without a reason is a restatement of what happened, not an answer */
const REASON_MISS = 0.4;
/** words that give a reason: a why-question is not answered by a sentence that only restates what happened */
const REASON =
  /\b(because|since|so that|in order to|due to|owing to|as a result|reason|why|cause[sd]?|for fear|mistake|therefore|thus|hence)\b/i;

const PLACE_PHRASE = /\b(in|at|on|from|into|inside|under)\s+(the|a|an|his|her)\s+\p{L}/u;

function typeFactor(shape: QuestionShape, text: string, question: string): number {
  // "how old", "how long": an age or a length, not just any number
  if (shape.focusKind && shape.focus.length === 0) return holdsFocusKind(shape.focusKind, text, question) ? 1 : 0;
  switch (shape.kind) {
    case "number":
    case "time":
      return holdsAnswerType(shape.kind, text, question) ? 1 : 0;
    case "name":
    case "place":
      return holdsAnswerType("name", text, question) || PLACE_PHRASE.test(text) ? 1 : SOFT_TYPE_MISS;
    case "reason":
      return REASON.test(text) ? 1 : REASON_MISS;
    case "code":
      return holdsCode(text, question) ? 1 : 0;
    default:
      return 1;
  }
}

/** A token with a digit the question does not give ("FAA–2020–0686", "221B"): a number that names something. */
function holdsCode(text: string, question: string): boolean {
  const asked = new Set(question.toLowerCase().match(CODE_TOKEN) ?? []);
  return (text.toLowerCase().match(CODE_TOKEN) ?? []).some((t) => !asked.has(t));
}
const CODE_TOKEN = /[\p{L}\p{N}–-]*\p{N}[\p{L}\p{N}–-]*/gu;

/** Scores every answering unit of the passages (headings and table headers are context, not answers). */
export function scoreUnits(
  weights: Map<string, number>,
  question: string,
  shape: QuestionShape,
  passages: UnitPassage[],
  lexicon?: GateLexicon,
): ScoredUnit[] {
  let total = 0;
  for (const w of weights.values()) total += w;
  const out: ScoredUnit[] = [];
  if (total === 0) return out;
  const minTerms = Math.min(2, weights.size);
  // a document card speaks for its whole document: the question's words found in that document's other passages
  // ("the Boeing 737 MAX airworthiness directive" of a Federal Register notice) count for its card as neighbours
  const docTerms = new Map<string, Set<string>>();
  const lang = langOf(weights);
  // a name the question gives ("study A5346", "Kentucky", "bash 5.3") names the thing asked about: a passage without
  // it is about something else, however many other words it shares — unless its document names it elsewhere in the
  // passages found (a protocol names its study once, a novel its hero now and then)
  const names = questionNames(question, weights, lang);
  const namedIn = new Map<string, Set<string>>();
  for (const p of names.stems.length + names.literals.length ? passages : []) {
    const terms = stemSet(`${p.headingPath}\n${p.text}`, lang);
    const set = namedIn.get(p.source) ?? new Set<string>();
    for (const t of names.stems) if (terms.has(t)) set.add(t);
    for (const l of names.literals) if (p.text.includes(l)) set.add(l);
    namedIn.set(p.source, set);
  }
  const aboutDocument = wordTokens(question).some((w) => DOCUMENT_FACT_WORDS.has(w));
  // "Airworthiness Directive (AD)": where the documents define an abbreviation, a sentence using it says the long form
  const abbreviations = definedAbbreviations(passages, lang);
  // "How many PLANES …": where some unit writes a count of what is asked ("73 airplanes"), the units that count nothing
  // of it are about the subject more than about the count (what is counted is met by a count of it)
  const counting = shape.counted ? countingUnits(passages, shape.counted, question, lang) : null;
  for (const p of aboutDocument ? passages : []) {
    if (p.headingPath === CARD_HEADING) continue;
    const set = docTerms.get(p.source) ?? new Set<string>();
    for (const t of stemSet(p.text, lang)) if (weights.has(t)) set.add(t);
    docTerms.set(p.source, set);
  }
  for (const [p, passage] of passages.entries()) {
    const isCard = passage.headingPath === CARD_HEADING;
    const head = stemSet(`${readableName(passage.source)}\n${passage.headingPath}`, lang);
    // the entry a passage is ("HISTCONTROL" under Shell Variables, "-e" under set): its sentences speak of it by name
    // once, then as "a value of …": the entry's own name counts as their word
    const entry = entryName(passage.headingPath, lang);
    const closed = closedEntryWord(passage.headingPath);
    const units = segmentPassage(passage.text);
    const rowKeys = keyCounts(units);
    const tokens = units.map((u) =>
      spellOut(stemTokens(u.kind === "row" ? readableKeys(u.text) : u.text, lang), u.text, abbreviations, weights),
    );
    const sets = tokens.map((t) => new Set(t));
    let localHead = new Set<string>();
    for (const [i, unit] of units.entries()) {
      const terms = sets[i] as Set<string>;
      if (unit.kind === "heading" || unit.kind === "header") {
        // a label ("Beweis: …") is under the heading above it ("Satz 5.5 (Satz von Gauß-Bonnet)")
        localHead = unit.label ? new Set([...localHead, ...terms]) : terms;
        continue;
      }
      if (shape.negated && !NEGATION.test(unit.text)) continue;
      // a row is a record of its own: the rows around it are other records, not its context
      const around = unit.kind === "row" ? [] : [sets[i - 1], sets[i + 1]].filter((s): s is Set<string> => !!s);
      let mass = 0;
      let own = 0;
      let contradicted = false;
      // in a long sentence (a novel's, a regulation's) only the words near each other count fully
      const near = unit.kind !== "row" && (tokens[i] as string[]).length > WINDOW ? densestWindow(tokens[i] as string[], weights) : terms;
      // a focus that names a number or a date is answered by one ("What dose …?" — "100 mg/day")
      const focusByKind = !!shape.focusKind && holdsFocusKind(shape.focusKind, unit.text, question);
      const focusTerms = focusByKind ? new Set(shape.focus.flat()) : null;
      // a question word that is one of the focus's own alternatives ("wrote" for "Author: …") counts when the focus is met
      const metFocus = new Set(shape.focus.filter((g) => g.some((t) => terms.has(t) || head.has(t) || localHead.has(t))).flat());
      const counts = counting?.has(unit.text) ?? false;
      if (counts) metFocus.add(stem(shape.counted as string, lang));
      for (const [t, w] of weights) {
        if (near.has(t) || focusTerms?.has(t) || metFocus.has(t) || (isCard && aboutDocument && documentFactStems().has(t))) {
          // (a card's fields are the document's facts: "Created" is when it was published)
          mass += w;
          own++;
        } else if (terms.has(t)) {
          mass += w * NEIGHBOUR;
          own++;
        } else if (entry.has(t) || partOfClosed(closed, t)) {
          mass += w;
          own++;
        } else if (head.has(t) || localHead.has(t)) mass += w;
        else if (lexicon && [...lexicon.synonyms(t)].some((x) => terms.has(x))) {
          mass += w * lexicon.synonymWeight;
          own++;
        } else if (lexicon && [...lexicon.antonyms(t)].some((x) => terms.has(x))) contradicted = true;
        else if (around.some((s) => s.has(t)) || (isCard && docTerms.get(passage.source)?.has(t))) mass += w * NEIGHBOUR;
      }
      if (contradicted) continue;
      // a row belongs to the table its heading names ("NICS Firearm Background Checks November - 2015"): the
      // heading's words are the row's own, so the totals row of that table is no lone-word match
      if (unit.kind === "row") for (const t of weights.keys()) if (!terms.has(t) && (localHead.has(t) || head.has(t))) own++;
      const typed = typeFactor(shape, unit.text, question);
      let score = (mass / total) * (own < minTerms ? LONE_WORD : 1) * typed;
      if (isIndexListing(passage.headingPath, unit.text)) score *= BOOK_INDEX;
      // a sentence that only names who or what is asked about ("good-bye, Mr. Jabez Wilson") says nothing of what is
      // asked ("paid to copy"): the name is the topic, the other words are the fact — unless it holds the value asked
      // for ("How many died in the Ethiopian Airlines crash?" — "… Ethiopian Airlines …, resulting in 157 fatalities")
      const holdsValue = typed === 1 && (focusByKind || shape.kind === "number" || shape.kind === "time");
      if (unit.kind === "sentence" && !isCard && !holdsValue && saysOnlyNames(weights, names.stems, (t) => terms.has(t) || entry.has(t)))
        score *= NAMES_ONLY;
      // a card tells what a document is, who made it and when: asked anything else, its fields answer nothing
      if (isCard && !aboutDocument) score *= CARD_ELSEWHERE;
      // a row is found by its values ("Twitter, Inc."), not by the column names every row repeats; a form's row
      // ("Study Endpoints: …", a key no other row has) is found by its key
      if (unit.kind === "row" && (unit.text.match(ROW_KEYS) ?? []).some((k) => (rowKeys.get(k) ?? 0) > 1)) {
        const values = stemSet(unit.text.replace(ROW_KEYS, " "), lang);
        if (![...weights.keys()].some((t) => values.has(t))) score *= UNIDENTIFIED_ROW;
      }
      const seen = (t: string) => terms.has(t) || head.has(t) || localHead.has(t) || around.some((s) => s.has(t));
      const named = namedIn.get(passage.source);
      const unnamed =
        names.stems.some((t) => !named?.has(t) && !seen(t)) || names.literals.some((l) => !named?.has(l) && !unit.text.includes(l));
      if (unnamed || !shape.required.every((alternatives) => alternatives.some(seen))) score *= FOCUS_MISS;
      else if (counting && counting.size > 0 && !counts && unit.kind !== "row") score *= COUNT_MISS;
      // (a focus that names a value kind is answered by a value of that kind)
      else if (!focusByKind && !shape.focus.every((alternatives) => alternatives.some(seen)))
        score *= shape.classFocus ? CLASS_MISS : FOCUS_MISS;
      out.push({ passage: p, unit, score, terms });
    }
  }
  return out;
}

/** The texts of the units (rows aside: a table's count stands under its column) that write a count of `counted`. */
function countingUnits(passages: UnitPassage[], counted: string, question: string, lang: ReturnType<typeof langOf>): Set<string> {
  const writes = countOf(counted, question, lang);
  const out = new Set<string>();
  for (const p of passages)
    for (const u of segmentPassage(p.text)) if (u.kind !== "row" && u.kind !== "heading" && u.kind !== "header" && writes(u.text)) out.add(u.text);
  return out;
}

const COUNT_WORD = /^(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundreds?|thousands?|millions?|dozens?)$/i;
/** words between a count and what it counts: "73 airplanes", "43 participants", "two more U.S.-registered planes" */
const COUNT_GAP = 2;
const COUNTED_TAIL = 4;
const clean = (token: string) => token.replace(/^[‘“"'(]+|[’”"'),.;:!?]+$/gu, "").toLowerCase();

/**
 * Whether a text writes a count of `counted`: a count (digits the question does not give, or a number word) followed,
 * within two plain words, by what is counted — as written, stemmed alike, or closing a compound ("airplanes" counts
 * "planes").
 */
function countOf(counted: string, question: string, lang: ReturnType<typeof langOf>): (text: string) => boolean {
  const asked = new Set(wordTokens(question));
  const want = stem(counted, lang);
  const counts = (word: string) => stem(word, lang) === want || (counted.length >= COUNTED_TAIL && word.endsWith(counted) && word !== counted);
  return (text) => {
    const tokens = text.split(/\s+/);
    for (const [i, token] of tokens.entries()) {
      // "a 5-cylinder engine", "a 4-week follow-up": the count and what it counts in one word
      const joined = /^(?:\d[\d,.]*|[\p{L}]+)-(\p{L}+)/u.exec(token);
      if (joined && (numbersIn(token).length > 0 || COUNT_WORD.test(token.split("-")[0] ?? "")) && counts(`${joined[1]}s`.toLowerCase()))
        return true;
      const value = numbersIn(token)[0];
      const isCount = value ? !asked.has(value.toLowerCase()) : COUNT_WORD.test(clean(token));
      if (!isCount) continue;
      for (const word of tokens.slice(i + 1, i + 2 + COUNT_GAP).map(clean)) {
        if (!/^[\p{L}.-]+$/u.test(word)) break;
        if (counts(word)) return true;
      }
    }
    return false;
  };
}

/**
 * The names a question gives: codes of letters and digits, words capitalised inside a sentence (a place, a person, a
 * product; not in languages that capitalise all nouns) and dotted numbers as written.
 */
function questionNames(question: string, weights: Map<string, number>, lang: ReturnType<typeof langOf>) {
  const stems = new Set([...weights.keys()].filter((t) => IDENTIFIER.test(t)));
  const words = question.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  const capitalised = question.match(/(?<![.?!]\s*|^\s*)(?<=[\s("“‘])\p{Lu}[\p{L}\p{N}'’-]*/gu) ?? [];
  const initials = words.filter((w) => /^\p{Lu}/u.test(w)).length;
  if (!NOUNS_CAPITALISED.has(lang) && !YES_NO.test(question) && initials <= Math.max(1, words.length * TITLE_CASE_SHARE))
    for (const w of capitalised) for (const t of stemSet(w, lang)) if (weights.has(t)) stems.add(t);
  return { stems: [...stems], literals: question.match(DOTTED_NUMBER) ?? [] };
}

/** "Flight Control Computer (FCC)": a capitalised run of words and, in brackets, their initials. */
const ABBREVIATION_DEFINED = /((?:[\p{L}][\p{L}-]*\s+){1,8}?(?:[\p{L}][\p{L}-]*))\s*\((\p{Lu}{2,8})s?\)/gu;
const MINOR_WORDS = new Set(["of", "and", "the", "for", "to", "in", "on", "a", "an", "or", "de", "du", "la", "le", "der", "die", "und"]);

interface Abbreviation {
  /** its stem as the analyzer keys it ("ad") */
  key: string;
  /** the stems of its long form ("airworthi", "direct") */
  long: string[];
  /** the abbreviation as a word of a unit's text, singular or plural */
  used: RegExp;
}

/** The abbreviations the passages define: the long form's words, read backwards, give the initials. */
function definedAbbreviations(passages: UnitPassage[], lang: ReturnType<typeof langOf>): Map<string, Abbreviation> {
  const out = new Map<string, Abbreviation>();
  for (const p of passages) {
    for (const m of p.text.matchAll(ABBREVIATION_DEFINED)) {
      const short = m[2] as string;
      if (out.has(short)) continue;
      const words = (m[1] as string).split(/\s+/);
      const taken: string[] = [];
      let initials = "";
      for (let i = words.length - 1; i >= 0 && initials.length < short.length; i--) {
        const w = words[i] as string;
        taken.unshift(w);
        if (!MINOR_WORDS.has(w.toLowerCase())) initials = (w[0] ?? "").toUpperCase() + initials;
      }
      if (initials !== short) continue;
      const long = stemTokens(taken.join(" "), lang);
      const key = stemTokens(short, lang)[0];
      if (key && long.length > 1) out.set(short, { key, long, used: new RegExp(`\\b${short}s?\\b`) });
    }
  }
  return out;
}

/**
 * A unit's stems with each defined abbreviation it uses spelled out after it ("this proposed AD" also says
 * "airworthiness directive"), and, when the question uses the abbreviation, the abbreviation added where the unit
 * spells the long form out.
 */
function spellOut(stems: string[], text: string, abbreviations: Map<string, Abbreviation>, weights: Map<string, number>): string[] {
  if (abbreviations.size === 0) return stems;
  let out = stems;
  for (const a of abbreviations.values()) {
    if (a.used.test(text)) {
      const expanded: string[] = [];
      for (const t of out) {
        expanded.push(t);
        if (t === a.key) expanded.push(...a.long);
      }
      out = expanded;
    } else if (weights.has(a.key) && a.long.every((t) => out.includes(t))) out = [...out, a.key];
  }
  return out;
}

/** The stems of a passage's last heading when it names one entry (a term, an option, a variable), not a section. */
function entryName(headingPath: string, lang: ReturnType<typeof langOf>): Set<string> {
  // (an entry sits under a section: a heading on its own is a document's or a chapter's title)
  const parts = headingPath.split(" > ");
  const last = parts.at(-1)?.trim() ?? "";
  if (parts.length < 2 || !last || last.split(/\s+/).length > 3) return new Set();
  return stemSet(last, lang);
}

/** The unit says some of the question's names and none of its other words, while the question has other words. */
function saysOnlyNames(weights: Map<string, number>, names: string[], says: (t: string) => boolean): boolean {
  const others = [...weights.keys()].filter((t) => !names.includes(t));
  return others.length > 0 && names.some(says) && !others.some(says);
}

/** An entry named by one closed word of letters ("pipefail", "histappend", "globstar"), lower-cased, or "". */
function closedEntryWord(headingPath: string): string {
  const last = headingPath.split(" > ").at(-1)?.trim() ?? "";
  return headingPath.includes(" > ") && /^\p{L}{6,}$/u.test(last) ? last.toLowerCase() : "";
}

/**
 * A question's word that begins or ends a closed entry name ("fail" in "pipefail", "append" in "histappend"): an
 * option's name is its words written together, and the question says them apart.
 */
const partOfClosed = (word: string, stem: string): boolean =>
  stem.length >= CLOSED_PART && word.length >= stem.length + CLOSED_PART - 1 && (word.startsWith(stem) || word.endsWith(stem));
const CLOSED_PART = 4;

/** How many rows of a passage carry each key ("Permit: " in every row of a table, "Study Endpoints: " once). */
function keyCounts(units: { kind: string; text: string }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const u of units)
    if (u.kind === "row") for (const k of new Set(u.text.match(ROW_KEYS) ?? [])) counts.set(k, (counts.get(k) ?? 0) + 1);
  return counts;
}

/** "FY09_EDU_Recipients_by_State", "annualReport-2024" → words: a file name's parts are searchable words. */
export const readableName = (name: string) => name.replace(/[_.-]+/g, " ").replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2");

/** A row with its column names as words ("margin_of_error: 73" → "margin of error: 73"): a question asks in words. */
const readableKeys = (row: string) => row.replace(ROW_KEYS, (key) => readableName(key));

/** Words that count as one passage of a long sentence. */
const WINDOW = 30;

/** The question terms in the best-covered run of WINDOW words of a long unit. */
function densestWindow(tokens: string[], weights: Map<string, number>): Set<string> {
  const counts = new Map<string, number>();
  let mass = 0;
  let best = { mass: -1, at: 0 };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    const w = weights.get(t);
    if (w !== undefined) {
      counts.set(t, (counts.get(t) ?? 0) + 1);
      if (counts.get(t) === 1) mass += w;
    }
    if (i >= WINDOW) {
      const out = tokens[i - WINDOW] as string;
      const wo = weights.get(out);
      if (wo !== undefined) {
        const c = (counts.get(out) ?? 1) - 1;
        counts.set(out, c);
        if (c === 0) mass -= wo;
      }
    }
    if (mass > best.mass) best = { mass, at: Math.max(0, i - WINDOW + 1) };
  }
  return new Set(tokens.slice(best.at, best.at + WINDOW).filter((t) => weights.has(t)));
}

/** The best unit's score: how well the passages answer the question (0..1). */
export const bestScore = (units: ScoredUnit[]) => units.reduce((m, u) => Math.max(m, u.score), 0);
