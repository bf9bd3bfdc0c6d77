import { FOREIGN_SPAN, holdsAnswerType } from "./answer-type.ts";
import { stem } from "./terms.ts";

/**
 * Focus nouns that name a measured value, and what a value of that kind looks like: a unit holding one answers for
 * the noun ("What dose …?" — "100 mg/day"; "What is the deadline …?" — "by September 21, 2020"), so the noun itself
 * need not be written out. A bare number is not a dose or a price: "store below 25 °C" does not answer "What is
 * the dose?".
 */
export type FocusKind =
  | "number"
  | "time"
  /** a point in time ("the date of the incident"): a span ("5 year-old", "within 14 days") is no date */
  | "date"
  | "range"
  | "dose"
  | "money"
  | "length"
  | "duration"
  /** a length or a duration: "how long" */
  | "extent"
  | "age"
  | "percent"
  | "temperature"
  | "weight";

const NUM = String.raw`\d[\d.,]*`;
/** a count in digits or words: "3", "two", "a dozen" */
const COUNT = String.raw`(?:${NUM}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred|a few|several|a dozen|half an?|an?)`;
/** "3 days", "two working days", "4-week" */
const unit = (units: string) => new RegExp(String.raw`\b${COUNT}\s*-?\s*(?:[\p{L}]+\s+)?(?:${units})\b`, "iu");
const TESTS: Record<Exclude<FocusKind, "number" | "time" | "extent" | "date">, RegExp> = {
  range: new RegExp(
    String.raw`\bbetween\s+-?${NUM}\s+and\s+-?${NUM}|\bfrom\s+-?${NUM}\s+(?:to|through|until)\s+-?${NUM}|\b${NUM}\s*[-–]\s*${NUM}\b`,
    "i",
  ),
  dose: unit("mg|g|mcg|µg|μg|ml|iu|units?|tablets?|capsules?|drops?|puffs?|doses?"),
  // a currency sign or word, an amount with cents as tables print them ("37,499.96"), or a number in a field
  // labelled as money ("price: 349", "Cost per product: 3400")
  money: new RegExp(
    String.raw`[$€£¥]\s*${NUM}|${NUM}\s*(?:€|euros?|eur|usd|dollars?|pounds?|shillings?|cents?|pence|francs?|yen)\b|\b\d[\d,]*\.\d\d\b|\b(?:price|cost|costs|fee|fees|fare|amount|salary|wage|charge)\b[\p{L} ()/_-]{0,30}:\s*${NUM}`,
    "iu",
  ),
  length: unit("words?|pages?|characters?|lines?|m|km|cm|mm|ft|feet|foot|inch(?:es)?|miles?|yards?|meters?|metres?|bytes?|kb|mb|gb"),
  duration: unit("seconds?|minutes?|hours?|days?|weeks?|months?|years?|nights?"),
  age: /\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[a-z]+teen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ]\w+)?\s+years?(?:\s+old|\s+of\s+age)?\b|\baged?\s+\d+/i,
  percent: new RegExp(String.raw`${NUM}\s*(?:%|percent|per cent)`, "i"),
  temperature: new RegExp(String.raw`${NUM}\s*(?:°|degrees?)`, "i"),
  weight: unit("kg|g|lbs?|pounds?|tons?|tonnes?|ounces?|oz"),
};

/** The nouns that name a kind: "what is the price" asks for money. */
const KIND_WORDS: [FocusKind, string][] = [
  ["number", "number count total population amount quantity rating score capacity limit threshold speed"],
  ["date", "date dates birthday"],
  ["time", "year day month deadline anniversary century decade time hour"],
  ["range", "range"],
  ["dose", "dose dosage"],
  ["money", "price cost costs fee fees salary wage budget fare"],
  ["length", "length size height depth width distance"],
  ["duration", "duration period"],
  ["age", "age"],
  ["percent", "percentage percent rate"],
  ["temperature", "temperature"],
  ["weight", "weight"],
];
// stemmed on first use: stemming loads the English stemmer, which no start (and no first /health) should wait for
let kindOf: Map<string, FocusKind> | undefined;

export const focusKindOf = (stemmed: string): FocusKind | undefined => {
  kindOf ??= new Map(KIND_WORDS.flatMap(([kind, words]) => words.split(" ").map((w) => [stem(w), kind] as const)));
  return kindOf.get(stemmed);
};

/** The stems of the nouns that name `kind` ("age" for an age): a form's field under such a label holds one. */
export const kindStems = (kind: FocusKind): string[] =>
  (KIND_WORDS.find(([k]) => k === kind)?.[1] ?? "")
    .split(" ")
    .filter(Boolean)
    .map((w) => stem(w));

/** Whether `text` holds a value of the kind the focus names (not just a number the question brought). */
export function holdsFocusKind(kind: FocusKind, text: string, question: string): boolean {
  if (kind === "number" || kind === "time") return holdsAnswerType(kind, text, question);
  if (kind === "date") return holdsAnswerType("time", text, question, { spans: false });
  if (kind === "extent") return TESTS.length.test(text) || TESTS.duration.test(text) || FOREIGN_SPAN.test(text);
  if (kind === "duration" && FOREIGN_SPAN.test(text)) return true;
  return TESTS[kind].test(text);
}

/** The answer type a focus kind asks for: every measured value is a number, dates are times. */
export const answerTypeOf = (kind: FocusKind): "number" | "time" => (kind === "time" || kind === "date" ? "time" : "number");
