import { wordTokens } from "./terms.ts";

/**
 * What kind of answer a question asks for, and whether a piece of text holds one. A "when" question is not
 * answered by a sentence without a date in it, however many of its words that sentence shares: this is how
 * the gate tells an on-topic question the documents cannot answer from one they can.
 */
export type AnswerType = "number" | "time" | "name";
/**
 * What a question asks for, in any language: one of the answer types, a place, a reason, or a code — a number that
 * names something ("the docket number", "his telephone number"), digits of any shape.
 */
export type AskedKind = AnswerType | "place" | "reason" | "code";

const NUMBER_Q =
  /\bhow (many|much|long|far|old|large|big|tall|high|heavy|fast|often|deep|wide)\b|\b(what|which) (percentage|percent|proportion|number|amount|fraction|share|size|price|cost|version|range)\b/;
const TIME_Q =
  /\b(when|what year|which year|what century|which century|what decade|what date|what time|what period|what month|what day|in what year)\b/;
const NAME_Q = /\b(who|whom|whose|where)\b/;
const INTERROGATIVE =
  /^\s*(who|whom|whose|what|when|where|which|why|how|is|are|was|were|do|does|did|can|could|should|would|will|has|have|had|in what|on what|at what)\b/i;

/** a count in words — not one joined to another word ("a one-to-one correlation", "a one-off"), which is no count */
const NUMBER_WORD =
  /(?<![\p{L}]-)\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|dozens?|hundreds?|thousands?|millions?|billions?|half|twice|several|once)\b(?!-(?!(one|two|three|four|five|six|seven|eight|nine)\b)\p{L})/iu;
const MONTH =
  /\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?)\b/i;
/** a point in the day: "7:30", "9am", "noon" */
const CLOCK_TIME = /\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(am|pm|a\.m\.|p\.m\.)|\b(noon|midnight|o['’]clock)\b/i;
/** parts of a day, recurrences and spans: "in the morning", "weekly", "within 14 days", "5 year-old" */
const SPAN =
  /\b(morning|afternoon|evening|night|daily|weekly|monthly|yearly|annually)\b|\b(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|a few|several)[\s-](\w+\s)?(seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b/i;
/**
 * Counts written as words in German, French, Spanish, Italian, Portuguese and Dutch (question-words.ts); not the
 * articles that also mean one (ein, un, uno, een …), nor words that are English too (due, mil, cent, um, sept).
 */
const FOREIGN_COUNT = String.raw`(?:zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf|fünfzehn|zwanzig|dreißig|hundert|tausend|einmal|zweimal|dreimal|viermal|deux|trois|quatre|cinq|six|huit|neuf|dix|douze|quinze|vingt|trente|mille|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|doce|quince|veinte|treinta|cien|tre|quattro|cinque|sette|otto|nove|dieci|dodici|quindici|venti|trenta|cento|dois|duas|três|sete|oito|dez|doze|quinze|vinte|trinta|twee|drie|vijf|zes|zeven|negen|tien|twaalf|twintig|dertig|honderd|duizend)`;
const FOREIGN_NUMBER_WORD = new RegExp(String.raw`\b${FOREIGN_COUNT}\b`, "iu");
/** spans in those languages: "30 Tage", "drei Monaten", "deux semaines", "seis meses" */
export const FOREIGN_SPAN = new RegExp(
  String.raw`\b(?:\d+|${FOREIGN_COUNT})\s(?:tage?n?|wochen?|monate?n?|jahre?n?|stunden?|minuten?|jours?|semaines?|mois|ans|années?|heures?|días?|semanas?|meses|años?|horas?|minutos?|giorni|settimane|mesi|anni|ore|minuti|dias|anos|dagen|weken|maanden|jaren|uur|minuten)\b`,
  "iu",
);
/** months, weekdays and clock times in those languages */
const FOREIGN_TIME =
  /\b(januar|februar|märz|mai|juni|juli|oktober|dezember|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro|januari|februari|maart|augustus|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|lunes|martes|miércoles|jueves|viernes|sábado|domingo|semester|wintersemester|sommersemester|jahrhundert|siècle|siglo|secolo|século|eeuw)\b|\b\d{1,2}(?:[:.]\d{2})?\s?(uhr|h)\b/iu;
const ERA =
  /\b(centur(y|ies)|decades?|\d+s|\d+\s*(ad|bc|bce|ce)|today|yesterday|tomorrow|holidays?|weekends?|weekdays?|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/i;

const COUNTED = String.raw`\s*(words|pages|people|persons|participants|patients|employees|workers|members|times|units|items|copies|euros?|dollars|pounds|mg|g|kg|km|m|miles|feet|ft|hours|minutes|seconds|days|weeks|months|years|%)\b`;
/** "1871" is a year; "1200 words" and "1,500 people" are counts. */
function isYear(n: string, text: string): boolean {
  return /^(1[0-9]|20)\d\d$/.test(n) && !new RegExp(`\\b${n}${COUNTED}`, "i").test(text);
}

/** A question asks; a statement or a keyword query looks up (SciFact-style claims, "refund policy annual plan"). */
export function isQuestion(text: string): boolean {
  return /\?\s*$/.test(text) || INTERROGATIVE.test(text);
}

/** Interrogatives that ask for no particular kind of answer ("what does…", "why…", "how do I…"). */
const UNTYPED_Q = /\b(what|which|why|how)\b/;

/**
 * The kind of answer the question's own interrogative asks for: the earliest one decides, so the "when" of
 * "What file does bash read when a login shell exits?" is a clause, not the question.
 */
export function expectedAnswerType(question: string): AnswerType | null {
  const q = question.toLowerCase();
  const first: [AnswerType | null, number][] = [
    ["number", q.search(NUMBER_Q)],
    ["time", q.search(TIME_Q)],
    ["name", q.search(NAME_Q)],
    [null, q.search(UNTYPED_Q)],
  ];
  const found = first.filter(([, at]) => at >= 0).sort((a, b) => a[1] - b[1] || (a[0] === null ? 1 : b[0] === null ? -1 : 0));
  return found[0]?.[0] ?? null;
}

/**
 * Whether `text` holds a candidate of `type` that is not just a word of the question itself. `spans: false`: a time
 * must be a point in time (a date, a month, a year, a clock time), not a span.
 */
export function holdsAnswerType(type: AnswerType, text: string, question: string, opts: { spans?: boolean } = {}): boolean {
  const asked = new Set(wordTokens(question));
  const numbers = numbersIn(text).filter((n) => !asked.has(n.toLowerCase()));
  // a year is a date, not a count ("How many … in 1990?" is not answered by "in 1990"), unless a unit follows it
  if (type === "number") return numbers.some((n) => !isYear(n, text)) || NUMBER_WORD.test(text) || FOREIGN_NUMBER_WORD.test(text);
  if (type === "time")
    return (
      // (a date's year has four digits: "ch. 938" is a chapter)
      numbers.some((n) => (opts.spans === false ? /^[12]\d{3}$/ : /^\d{3,4}$/).test(n) || /^\d{1,2}[/.-]\d{1,2}/.test(n)) ||
      MONTH.test(text) ||
      ERA.test(text) ||
      CLOCK_TIME.test(text) ||
      FOREIGN_TIME.test(text) ||
      (opts.spans !== false && (SPAN.test(text) || FOREIGN_SPAN.test(text)))
    );
  return namesIn(text).some((w) => !asked.has(w.toLowerCase()));
}

/**
 * The numbers of a text, as values: "1,200", "3.5", "1871", "4" of "4-week", "21/09/2020". Codes that merely contain
 * digits — an AD number "2018–23–51", a model "737–8", a version "P12.1.2", a study "A5346" — are identifiers, not
 * quantities or dates, and are left out.
 */
export function numbersIn(text: string): string[] {
  const out: string[] = [];
  for (const token of text.split(/[\s()[\]{};"“”‘’'!?]+|:(?=\s|$)/)) {
    const t = token.replace(/[,.]+$/, "");
    if (!/\d/.test(t)) continue;
    const m = /^[$€£¥]?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(%|[-–]?\p{L}{0,12}(?:\/\p{L}+)?)?$/u.exec(t);
    if (m?.[1] && !/^[-–]?\d/.test(m[2] ?? "")) out.push(m[1]);
    else if (/^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}$/.test(t) || /^\d{1,2}[:.]\d{2}$/.test(t)) out.push(t);
  }
  return out;
}

/** Capitalised words that can name someone or something: not the first word of a sentence, a title or "I". */
function namesIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b\p{Lu}[\p{L}'’-]+/gu)) {
    // the first word of a sentence (after any opening quote) is capitalised whatever it is
    const before = text.slice(Math.max(0, m.index - 6), m.index);
    const sentenceStart = m.index <= 6 ? /^["“‘(\s]*$/u.test(before) : /[.!?:]["”’]?\s+["“‘(]?$/u.test(before);
    if (sentenceStart || TITLES.has(m[0].toLowerCase())) continue;
    out.push(m[0]);
  }
  return out;
}
const TITLES = new Set("mr mrs ms miss dr prof sir i i'm i’ve i’ll".split(" "));
