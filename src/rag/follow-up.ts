import { queryTerms } from "./terms.ts";

/** An earlier turn, oldest first: the visitor's words, the standalone query searched and the answer, where known. */
export interface PriorTurn {
  question: string;
  searchQuery?: string;
  answer?: string;
}

const ANAPHOR = /\b(it|its|they|them|their|theirs|he|him|his|she|her|hers|this|these|those|that one|the same)\b/i;
const PERSON_PRONOUN = /\b(he|him|his|she|her|hers)\b/i;
const ELLIPTIC_LEAD = /^\s*(and what about|and how about|what about|how about|what of|same for|what if|and|but|also|so|then)\b[\s,]*/i;
const WH_LEAD = /^\s*(what|which|who|whom|whose|when|where|why|how(\s+(much|many|long|often|old|far|big|large|soon))?)\b\s*/i;
const IMPERATIVE_LEAD =
  /^\s*(please\s+)?(tell me|explain|describe|give me|show me|i want to know|i'd like to know)(\s+(more\s+)?about)?\s*/i;
const AUX_LEAD = /^(is|are|was|were|do|does|did|can|could|should|would|will|has|have|had|may|might|must)\b\s*/i;
const DO_AUX = /^(do|does|did)\b/i;
// Common main verbs that end the subject of a do-question ("how much does the Pro plan COST").
const VERB = new Set(
  "cost apply work mean include take get make need use start end happen come go say offer require support allow last arrive begin become live die win lose pay charge run contain cover hold play build produce".split(
    " ",
  ),
);
const MONTH = /\b(january|february|march|april|may|june|july|august|september|october|november|december)\b/i;
const YEAR = /\b(1[5-9]\d\d|20\d\d)\b/;
/** shell variables, options and other symbol-words: "$$", "$!", "-e", "--login" */
const SYMBOL = /(?<![\w$-])(\$[^\s\w]|\$\w+|--?[A-Za-z][\w-]*)(?![\w$])/;
/** a capitalised name after a preposition: "in Texas", "in the Ethiopian Airlines crash" */
const PLACE_PHRASE =
  /\b(in|for|at|on|from|of)\s+((?:the\s+)?\p{Lu}[\p{L}\d'’.-]*(?:\s+\p{Lu}[\p{L}\d'’.-]*|\s+\d+)*(?:\s+\p{Ll}+)?)(?=\s+(?:in|for|at|on|from|of|during)\b|\s*[?.!,]|\s*$)/u;
const FUNCTION_WORDS = new Set(
  "a an the of in on at for to from by with and or as into about like than over under between through during before after per via against within without many much how what which who were was is are did do does there their his her its".split(
    " ",
  ),
);

/**
 * Does this question lean on earlier turns? Pronoun-led or pronoun-bearing, elliptic ("and for students?",
 * "what about X?") or too short to stand alone ("why?", "how much?").
 */
export function isFollowUp(question: string): boolean {
  return ANAPHOR.test(question) || ONE_ANAPHOR.test(question) || ELLIPTIC_LEAD.test(question) || queryTerms(question).length <= 1;
}
/** "the altitude one": a noun left out because the previous question named it */
const ONE_ANAPHOR = /\b(the|that|this)\s+([\p{L}-]+)\s+one\b(?!\s+(?:about|for|with|of|on)\b)/iu;

/** Does the question point back with a pronoun ("does it…", "their leader")? Then it cannot stand alone. */
export function hasAnaphor(question: string): boolean {
  return ANAPHOR.test(question);
}

/** An elliptic question ("And in October?", "What about monthly plans?"): it names only what changes. */
export function isElliptic(question: string): boolean {
  return ELLIPTIC_LEAD.test(question) && !WH_AFTER_LEAD.test(question.replace(ELLIPTIC_LEAD, ""));
}
const WH_AFTER_LEAD = /^(what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could)\b(?! about)/i;

/** The words an elliptic question brings that the previous question did not have: what changed ("october"). */
export function changedTerms(question: string, previous: string): string[] {
  const before = new Set(queryTerms(previous));
  return queryTerms(question.replace(ELLIPTIC_LEAD, "").replace(/\b(the|that|this)\s+one\b/gi, "")).filter((t) => !before.has(t));
}

/** The subject of a standalone question: what follows its wh-word and auxiliary ("the Normans in Normandy"). */
export function subjectOf(question: string): string {
  let s = question.trim().replace(/[?.!\s]+$/u, "");
  s = s.replace(IMPERATIVE_LEAD, "").replace(WH_LEAD, "");
  const doQuestion = DO_AUX.test(s);
  const beQuestion = /^(is|are|was|were)\b/i.test(s);
  s = s.replace(AUX_LEAD, "");
  // "When was the museum built?": the participle is what happened to the subject, not part of it
  if (beQuestion)
    s = s.replace(
      /^(\S+(?:\s+\S+)+?)\s+(\p{Ll}+ed|built|made|held|done|sold|found|born|written|taken|given|paid|known|seen|shown|begun|run)$/u,
      "$1",
    );
  if (doQuestion) {
    const words = s.split(/\s+/);
    const cut = words.findIndex((w, i) => i > 0 && VERB.has(w.toLowerCase()));
    if (cut > 0) s = words.slice(0, cut).join(" ");
  }
  return queryTerms(s).length > 0 ? s : "";
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const possessive = (s: string) => (/s$/i.test(s) ? `${s}’` : `${s}'s`);
const endMark = (s: string) => (/[?!.]$/.test(s) ? s : `${s}?`);

/**
 * The previous question with one slot changed to what the elliptic question names: a year, a month, a symbol
 * ("$!" for "$$"), a capitalised name after a preposition ("in Texas" for "in California"), the words before a
 * shared noun ("handgun checks" for "long gun checks"), or the question's last noun phrase ("the mallets" for
 * "balls"). Null when no slot fits.
 */
export function replaceSlot(base: string, fragment: string): string | null {
  // "$!" keeps its "!": only a question mark (or a full stop) ends the fragment
  const frag = fragment
    .trim()
    .replace(/\s*[?]+$|\.$/u, "")
    .trim();
  if (!frag) return null;
  const swap = (re: RegExp, value: string) => (re.test(base) ? base.replace(re, () => value) : null);
  const year = YEAR.exec(frag);
  if (year && queryTerms(frag).length <= 2) return swap(YEAR, year[0]);
  const month = MONTH.exec(frag);
  if (month && queryTerms(frag.replace(YEAR, "")).length <= 1) return swap(MONTH, capitalise(month[0].toLowerCase()));
  const symbol = SYMBOL.exec(frag);
  if (symbol && queryTerms(frag).length <= 1) return swap(SYMBOL, symbol[0]);
  const place = PLACE_PHRASE.exec(frag.startsWith("in ") || frag.startsWith("for ") ? frag : `in ${frag}`);
  if (place && /^\s*(in|for|at|on|from)\b/i.test(frag)) {
    const inBase = PLACE_PHRASE.exec(base);
    if (inBase) return base.replace(inBase[0], () => `${inBase[1]} ${place[2]?.trim()}`);
  }
  // "of metformin" after "What dose of sitagliptin …": the same preposition's noun phrase changes
  const prep = /^(of|in|for|at|on|from|with|by|during)\s+(.+)$/i.exec(frag);
  if (prep?.[1] && prep[2]) {
    const inBase = new RegExp(
      String.raw`\b${prep[1]}\s+((?:the\s+|a\s+|an\s+)?[^\s?.,!]+(?:\s+(?!(?:in|on|at|for|of|from|to|with|by|during|is|are|was|were|given|used)\b)[^\s?.,!]+){0,3})`,
      "i",
    ).exec(base);
    if (inBase?.[1]) return base.replace(inBase[0], () => `${prep[1]} ${prep[2]}`);
  }
  // "the one about Y": Y replaces what the previous question's last preposition introduced
  const about = /^(?:the\s+)?one\s+(?:about|for|with|of|on)\s+(.+)$/i.exec(frag);
  if (about?.[1]) {
    const m = /\b(about|for|with|of|on)\s+[^?]*\??\s*$/i.exec(base);
    if (m) return `${base.slice(0, m.index)}${m[1]} ${about[1]}?`;
  }
  const words = frag.replace(/^(the|a|an)\s+/i, "").split(/\s+/);
  const head = words.at(-1)?.toLowerCase();
  if (!head || FUNCTION_WORDS.has(head)) return null;
  const baseWords = base.replace(/[?.!]+$/u, "").split(/\s+/);
  const at = baseWords.findIndex((w) => w.toLowerCase().replace(/[^\p{L}\d'’-]/gu, "") === head);
  if (at >= 0) {
    // the shared noun's modifiers change: "long gun checks" → "handgun checks"
    let from = at;
    while (from > 0 && !FUNCTION_WORDS.has((baseWords[from - 1] ?? "").toLowerCase())) from--;
    return endMark([...baseWords.slice(0, from), ...words, ...baseWords.slice(at + 1)].join(" "));
  }
  // the previous question's subject ("When was the harbour museum built?" → "… the lighthouse built?")
  const subject = subjectOf(base);
  if (/^(the|a|an)\s/i.test(subject) && subject.split(/\s+/).length <= 4 && base.includes(subject))
    return base.replace(subject, () => frag);
  // otherwise the fragment takes the place of the question's last noun phrase ("what did they use as balls")
  let from = baseWords.length - 1;
  if (from < 1 || FUNCTION_WORDS.has((baseWords[from] ?? "").toLowerCase())) return null;
  while (from > 1 && !FUNCTION_WORDS.has((baseWords[from - 1] ?? "").toLowerCase())) from--;
  if (baseWords.length - from > 3) return null;
  return endMark([...baseWords.slice(0, from), ...words].join(" "));
}

/**
 * A person named in an answer or question: "Mr. Jabez Wilson", "Irene Adler" (two or more capitalised words), or
 * failing that one capitalised word that does not start the sentence ("How much will Siobhan gain …").
 */
function personIn(text: string): string | null {
  const full = /\b((?:(?:Mr|Mrs|Ms|Miss|Dr|Prof|Sir|Lady|Lord)\.?\s+)?\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+)+)/u.exec(text);
  if (full?.[1] && !/^(The|A|An|This|That|In|On|At)\s/.test(full[1])) return full[1];
  const one = /(?<=\p{L}[\p{L},]*\s+)(\p{Lu}\p{Ll}{2,})\b/u.exec(text);
  return one?.[1] && !NOT_NAMES.has(one[1].toLowerCase()) ? one[1] : null;
}
const NOT_NAMES = new Set("the this that these those there then budget government company state city court".split(" "));

/**
 * Deterministic follow-up resolution (used when no language model is configured, and as the fallback when the
 * model's rewrite fails), always into a readable question:
 *  - an elliptic question changes one slot of the previous standalone question ("And in October?" after "How many
 *    permit checks did Kentucky have in November 2015?" → "… in October 2015?");
 *  - a pronoun is replaced by what it points to: a person named in the previous answer or question for he/she/his/
 *    her, the previous question's subject otherwise;
 *  - failing both, the previous subject is added in parentheses.
 * A standalone question is returned as is.
 */
export function rewriteFollowUp(question: string, history: PriorTurn[]): string {
  const q = question.trim();
  if (history.length === 0 || !isFollowUp(q)) return q;
  const last = history[history.length - 1] as PriorTurn;
  const base = (last.searchQuery ?? last.question).trim();
  if (isElliptic(q) && base) {
    const replaced = replaceSlot(
      base,
      q.replace(ELLIPTIC_LEAD, "").replace(/^(in|for)\s+(?=\S)/i, (m) => m),
    );
    if (replaced && replaced !== base) return replaced;
  }
  let subject = "";
  const one = ONE_ANAPHOR.exec(q);
  if (one) {
    const noun = subjectOf(base)
      .replace(/\s+(in|on|at|for|of)\s.*$/i, "")
      .split(/\s+/)
      .at(-1);
    if (noun && !FUNCTION_WORDS.has(noun.toLowerCase())) return q.replace(one[0], () => `${one[1]} ${one[2]} ${noun}`);
  }
  for (let i = history.length - 1; i >= 0 && !subject; i--) {
    const turn = history[i] as PriorTurn;
    subject = subjectOf(turn.searchQuery ?? turn.question);
  }
  const m = ANAPHOR.exec(q);
  if (m && !ELLIPTIC_LEAD.test(q)) {
    const word = m[0].toLowerCase();
    const person = PERSON_PRONOUN.test(word) ? (personIn(last.answer ?? "") ?? personIn(base)) : null;
    const referent = person ?? subject;
    if (referent) {
      const isPossessive =
        ["its", "their", "theirs", "his", "hers"].includes(word) || (word === "her" && /\bher\s+\p{L}/u.test(q.slice(m.index)));
      const replacement = isPossessive ? possessive(referent.replace(/['’]s$/, "")) : referent;
      const out = `${q.slice(0, m.index)}${replacement}${q.slice(m.index + m[0].length)}`;
      return m.index === 0 ? capitalise(out) : out;
    }
  }
  if (!subject) return q;
  return `${q.replace(/\s+$/u, "")} (${subject})`;
}
