import { type AskedKind, expectedAnswerType, isQuestion } from "./answer-type.ts";
import { answerTypeOf, type FocusKind, focusKindOf } from "./focus-kinds.ts";
import { foreignQuestion } from "./question-words.ts";
import { FRAME_VERBS, stem, wordTokens } from "./terms.ts";

/**
 * What a question asks for, beyond its words: the kind of answer (a number, a date, a name, a place, a reason)
 * and its focus — the thing asked about ("the CAPTAIN of Lion Air Flight 610", "Mrs. Hudson's FIRST NAME",
 * "what DOSE of sitagliptin"). A sentence that shares the question's other words but never mentions its focus
 * is about the same subject, not the answer: that is how on-topic questions the documents cannot answer are told
 * from those they can.
 */

export interface QuestionShape {
  question: boolean;
  kind: AskedKind | null;
  /** the focus names a number, a range or a date: a unit holding one satisfies the focus */
  focusKind?: FocusKind;
  /** stems the answer should mention, each with its accepted alternatives; empty when the question has no focus */
  focus: string[][];
  /** words the caller requires besides the focus, each group satisfied by any one of its stems (questionShape's mustMention) */
  required: string[][];
  negated: boolean;
  /**
   * the focus is the class of what is asked for ("What sweets did Alice hand out?"): the answer names one of them
   * ("comfits") and seldom the class itself, unlike a field asked for by its label ("What is the brand name …?")
   */
  classFocus?: boolean;
  /**
   * what "how many …" counts, as written ("planes" in "How many US-registered planes …?"): a count is written next to
   * what it counts ("73 airplanes of U.S. registry")
   */
  counted?: string;
}

/** Words that say "some value" rather than which one: they are never the focus. */
const GENERIC = new Set(
  "name names value values number numbers amount kind kinds type types sort sorts term terms word words thing things part parts way ways one ones version versions example examples something piece lot form".split(
    " ",
  ),
);
/** Verbs whose subject or object is a role a document names with a noun ("Who wrote X?" — "Author: …"). */
const ROLE_VERBS: Record<string, string[]> = {
  wrote: ["author", "writer", "written", "wrote", "by"],
  written: ["author", "writer", "written", "wrote", "by"],
  authored: ["author", "authored", "by"],
  directed: ["director", "directed"],
  painted: ["painter", "painted"],
  founded: ["founder", "founded"],
  invented: ["inventor", "invented"],
  composed: ["composer", "composed"],
  produced: ["producer", "produced", "credits"],
  published: ["publisher", "published", "date", "publication"],
  translated: ["translator", "translated"],
  illustrated: ["illustrator", "illustrated"],
};
/** focus nouns and the words a document may use for them */
const FOCUS_ALTERNATIVES: Record<string, string[]> = {
  author: ["author", "written", "wrote", "by"],
  price: ["price", "cost", "costs", "euro", "eur", "usd", "dollars"],
  cost: ["cost", "costs", "price"],
  age: ["age", "aged", "old"],
};
/** a word that negates what a sentence says (the answer to a negated question says it too) */
export const NEGATION = /\b(not|never|no|none|neither|nor|cannot|without|except|excluding|unless)\b|n['’]t\b/i;
/** "not only the last one", "not just files": a contrast that widens the question, no negation */
const WIDENING = /\bnot\s+(?:only|just|merely|simply|solely)\b/gi;
const negatedQuestion = (q: string): boolean => NEGATION.test(q.replace(WIDENING, " "));
const REASON_Q = /^\s*(why|what (is|was|were|are) the (reason|cause)s?|for what reason|how come)\b/i;
const PLACE_Q = /^\s*(where|in (what|which) (place|city|country|town|room|state))\b/i;

const PHRASE = String.raw`((?:[\p{L}\p{N}-]+\s+){0,3}?[\p{L}\p{N}-]+?)`;
const STOP_AFTER = String.raw`(?=\s+(?:of|for|on|in|to|at|from|that|which|who|does|did|do|is|was|are|were|has|have|had|should|would|will|can|could|must|given|used)\b|\s*[?]|\s*$)`;
const AUX = "do|does|did|is|was|are|were|can|could|should|would|will|may|might|must|has|have|had";
/** "what/which is the X …", "who is the X of …" */
const LEAD_PREP = String.raw`(?:(?:by|on|in|at|for|from|to|until|under|with)\s+)?`;
const WH_THE = new RegExp(
  String.raw`^\s*${LEAD_PREP}(?:what|which|who|whom)(?:['’]s|\s+(?:is|was|are|were))\s+(?:the|a|an|his|her|its|their)\s+${PHRASE}${STOP_AFTER}`,
  "iu",
);
/** "what X does …", "which X should …" */
const WH_NOUN = new RegExp(String.raw`^\s*${LEAD_PREP}(?:what|which)\s+(?!(?:${AUX}|the|a|an)\b)${PHRASE}\s+(?:${AUX})\b`, "iu");
/** "Which agency handled the case?", "What crime followed?": the noun after the interrogative is the verb's subject */
const WH_SUBJECT = new RegExp(
  String.raw`^\s*(?:what|which)\s+(?!(?:${AUX}|the|a|an|kind|sort|type)\b)([\p{L}-]{3,})\s+(?!(?:${AUX})\b)(?:\p{L}{2,}ed|wrote|won|led|made|took|gave|said|came|went|ran|found|got|saw|built|began|became|left|held|kept|paid|sold|told|brought|bought|caught|taught|sent|spent|lost|met|chose|drove|flew|grew|knew|threw|wore)\b`,
  "iu",
);
const POSSESSIVE = /^\s*(?:what|which)(?:['’]s|\s+(?:is|was|are|were))\s+[\p{L}\p{N}. ]+?['’]s\s+((?:[\p{L}-]+\s+)?[\p{L}-]+)\s*\??\s*$/iu;
const WHO_VERB = /^\s*who\s+(\p{L}+)/iu;
const VERB_AFTER_NAME =
  /^\s*(?:[Hh]ow|[Ww]hat|[Ww]hy|[Ww]hen|[Ww]here|[Ww]hom)\s+(?:did|does|do|will|would|can|could|should|has|have|had)\s+(?:the\s+)?(?:(?!I\s)\p{Lu}[\p{L}.'’-]*\s+){1,5}(\p{Ll}{3,})\b/u;
/** verbs that say little about what happened: they are never the focus */
const LIGHT_VERBS = new Set([
  ..."get got make made do did have has had be become come go say said take took give gave use used find found know think".split(" "),
  // "What does OLDPWD hold?": the verb only asks what the thing is
  ...FRAME_VERBS,
]);
const CALLED = /\b(called|named)\s*\??\s*$/i;
/** the words after "how many", up to the verb or preposition that ends the noun phrase */
const HOW_MANY = /\bhow many\s+((?:[\p{L}.'’-]+\s*){1,3})/iu;
const COUNT_STOP = new Set(`${AUX} of for on in to at from that which who per each a an the there`.split(/[|\s]+/));
/** a plural as English writes it: "planes", "participants" (not "us", "class", "status", "this") */
const PLURAL = /^\p{L}[\p{L}'’-]*\p{L}{2}(?<![su]s|is)s$/u;
const NOT_COUNTED = new Set([...GENERIC, "times", "more", "less", "fewer", "other", "others", "different"]);

const stems = (words: string[]) => [...new Set(words.map((w) => stem(w.toLowerCase())))];
const NAME_MODIFIERS = new Set(
  "first last full maiden brand middle given family code user pen stage trade common scientific street".split(" "),
);
/** modifiers that say how much of a number, not which number */
const QUANTIFYING = new Set(
  "total average mean median maximum minimum exact approximate estimated overall actual largest smallest highest lowest greatest least whole full same different".split(" "),
);
const ARTICLES = new Set(["the", "a", "an", "his", "her", "its", "their"]);

/** The focus of a noun phrase: its head noun; a generic head ("the name of X") hands on to what follows "of". */
function focusFrom(phrase: string, question: string, depth = 0): string[][] {
  const words = wordTokens(phrase.split(/\s+of\s+/i)[0] ?? "").filter((w) => !ARTICLES.has(w));
  const head = words.at(-1);
  if (!head) return [];
  if (!GENERIC.has(head)) return [stems(FOCUS_ALTERNATIVES[head] ?? [head])];
  // "first name", "brand name": the modifier says which name
  const modifier = words.at(-2);
  // ("In the first place" is no first name: the name itself must be spoken of too)
  if (modifier && NAME_MODIFIERS.has(modifier)) return [stems([modifier]), stems([head, "call", "christen"])];
  phrase = phrase.split(/\s+of\s+/i)[0] ?? phrase;
  if (depth > 0) return [];
  const escaped = phrase.trim().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const of = new RegExp(String.raw`${escaped}\s+of\s+(?:the\s+|a\s+|an\s+)?${PHRASE}${STOP_AFTER}`, "iu").exec(question)?.[1];
  return of ? focusFrom(of.replace(/['’]s\b/g, " "), question, depth + 1) : [];
}

/** "docket number", "telephone number": the word that says which number, unless it says how much ("total number"). */
function namingNumber(phrase: string): string | undefined {
  const words = wordTokens(phrase.split(/\s+of\s+/i)[0] ?? "").filter((w) => !ARTICLES.has(w));
  const [modifier, head] = words.slice(-2);
  return head === "number" && modifier && !GENERIC.has(modifier) && !QUANTIFYING.has(modifier) ? modifier : undefined;
}

/** "how old" asks for an age, "how long" for a length or a duration …: a bare number does not answer them */
const HOW_KIND: [RegExp, FocusKind][] = [
  [/\bhow much\b.*\b(pay|pays|paid|cost|costs|charge|charged|earn|earns|earned|spend|spent|price|fee|salary|wage|worth)\b/i, "money"],
  // "What does the FAA estimate it costs each airline …?", "What does a printed copy cost?"
  [/\bwhat\s+(?:does|do|did|will|would|should)\b.*\b(?:cost|costs|charge|charges)\b/i, "money"],
  [/\bhow old\b/i, "age"],
  [/\bhow long\b/i, "extent"],
  [/\bhow (far|tall|high|deep|wide)\b/i, "length"],
  [/\bhow heavy\b/i, "weight"],
];

/**
 * What "how many" counts: the first plural of the noun phrase after it ("How many US-registered PLANES would …",
 * "How many SETTLERS originally settled …"); none when the phrase has none ("How many of …", "How many times …").
 */
function countedBy(question: string): string | undefined {
  const words = (HOW_MANY.exec(question)?.[1] ?? "").toLowerCase().split(/\s+/);
  const stop = words.findIndex((w) => COUNT_STOP.has(w));
  const noun = words.slice(0, stop < 0 ? undefined : stop).find((w) => PLURAL.test(w));
  return noun && !NOT_COUNTED.has(noun) ? noun : undefined;
}

/**
 * `mustMention`: words the answer must mention besides the question's own focus — what an elliptic follow-up
 * changed ("And in October?" must be answered about October).
 */
export function questionShape(text: string, mustMention: string[] = []): QuestionShape {
  const q = text.trim();
  // a question in German, French, Spanish, Italian, Portuguese or Dutch: the kind its interrogative asks for
  const foreign = foreignQuestion(q);
  if (foreign) {
    const required = mustMention.length > 0 ? [[...new Set(mustMention.map((w) => stem(w.toLowerCase(), foreign.lang)))]] : [];
    const { kind, focus, focusKind } = foreign;
    return { question: isQuestion(q), kind, focus, required, negated: negatedQuestion(q), ...(focusKind ? { focusKind } : {}) };
  }
  const type = expectedAnswerType(q);
  let kind: AskedKind | null = type;
  if (REASON_Q.test(q)) kind = "reason";
  else if (PLACE_Q.test(q) && type === "name") kind = "place";
  if (CALLED.test(q) && kind === null) kind = "name";
  const focus: string[][] = [];
  const who = WHO_VERB.exec(q)?.[1]?.toLowerCase();
  const labelled = WH_THE.exec(q)?.[1];
  const classNoun = labelled ? undefined : WH_NOUN.exec(q)?.[1];
  const noun = labelled ?? classNoun ?? WH_SUBJECT.exec(q)?.[1];
  const possessed = POSSESSIVE.exec(q)?.[1];
  // "the docket number of …", "Holmes's telephone number": which number is the focus, and the answer has digits
  const numberOf = namingNumber(possessed ?? noun ?? "");
  if (numberOf) {
    focus.push(stems([numberOf]));
    kind = "code";
  } else if (who && ROLE_VERBS[who]) focus.push(stems(ROLE_VERBS[who] ?? []));
  else if (possessed !== undefined) focus.push(...focusFrom(possessed.replace(/\s+(called|named)$/i, ""), q));
  else if (noun && !CALLED.test(q)) focus.push(...focusFrom(noun, q));
  else {
    // "How did the Supreme Court RULE …", "What did the Dodo PRESENT …": what the named subject did is asked
    const verb = VERB_AFTER_NAME.exec(q)?.[1]?.toLowerCase();
    if (verb && !LIGHT_VERBS.has(verb)) focus.push(stems([verb]));
  }
  const focusKind = (focus.length === 1 ? focus[0]?.map(focusKindOf).find(Boolean) : undefined) ?? HOW_KIND.find(([re]) => re.test(q))?.[1];
  if (focusKind && kind === null) kind = answerTypeOf(focusKind);
  // any one of them will do: "And in the Ethiopian Airlines crash?" is answered by a sentence about "Ethiopian Airlines"
  const required = mustMention.length > 0 ? [stems(mustMention)] : [];
  const counted = kind === "number" && focus.length === 0 && !focusKind ? countedBy(q) : undefined;
  const classFocus = !!classNoun && !numberOf && !focusKind && focus.length === 1 && possessed === undefined && !who;
  return {
    question: isQuestion(q),
    kind,
    focus,
    required,
    negated: negatedQuestion(q),
    ...(focusKind ? { focusKind } : {}),
    ...(classFocus ? { classFocus } : {}),
    ...(counted ? { counted } : {}),
  };
}
