import { queryTerms } from "./terms.ts";

/** An earlier turn, oldest first: the visitor's words and, where known, the standalone query searched. */
export interface PriorTurn {
  question: string;
  searchQuery?: string;
}

const ANAPHOR = /\b(it|its|they|them|their|theirs|he|him|his|she|her|hers|this|these|those|that one|the same)\b/i;
const ELLIPTIC_LEAD = /^\s*(and|but|also|so|then|what about|how about|what of|same for|what if|and what about|and how about)\b/i;
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

/**
 * Does this question lean on earlier turns? Pronoun-led or pronoun-bearing, elliptic ("and for students?",
 * "what about X?") or too short to stand alone ("why?", "how much?").
 */
export function isFollowUp(question: string): boolean {
  return ANAPHOR.test(question) || ELLIPTIC_LEAD.test(question) || queryTerms(question).length <= 1;
}

/** Does the question point back with a pronoun ("does it…", "their leader")? Then it cannot stand alone. */
export function hasAnaphor(question: string): boolean {
  return ANAPHOR.test(question);
}

/** The subject of a standalone question: what follows its wh-word and auxiliary ("the Normans in Normandy"). */
export function subjectOf(question: string): string {
  let s = question.trim().replace(/[?.!\s]+$/u, "");
  s = s.replace(IMPERATIVE_LEAD, "").replace(WH_LEAD, "");
  const doQuestion = DO_AUX.test(s);
  s = s.replace(AUX_LEAD, "");
  if (doQuestion) {
    const words = s.split(/\s+/);
    const cut = words.findIndex((w, i) => i > 0 && VERB.has(w.toLowerCase()));
    if (cut > 0) s = words.slice(0, cut).join(" ");
  }
  return queryTerms(s).length > 0 ? s : "";
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * Deterministic follow-up resolution (used when no language model is configured, and as the fallback when
 * the model's rewrite fails): the subject of the latest earlier question that has one replaces the first
 * pronoun, or is appended in parentheses to an elliptic question. A standalone question is returned as is.
 */
export function rewriteFollowUp(question: string, history: PriorTurn[]): string {
  const q = question.trim();
  if (history.length === 0 || !isFollowUp(q)) return q;
  let subject = "";
  for (let i = history.length - 1; i >= 0 && !subject; i--) {
    const turn = history[i] as PriorTurn;
    subject = subjectOf(turn.searchQuery ?? turn.question);
  }
  if (!subject) return q;
  const m = ANAPHOR.exec(q);
  if (m && !ELLIPTIC_LEAD.test(q)) {
    const word = m[0].toLowerCase();
    const possessive = ["its", "their", "theirs", "his", "hers"].includes(word);
    const replacement = possessive ? `${subject.replace(/'s$/, "")}'s` : subject;
    const out = `${q.slice(0, m.index)}${replacement}${q.slice(m.index + m[0].length)}`;
    return m.index === 0 ? capitalise(out) : out;
  }
  return `${q.replace(/\s+$/u, "")} (${subject})`;
}
