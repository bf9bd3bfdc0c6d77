import { splitFragment } from "./pdf-fragments.ts";
import type { StreamItem, StreamLine } from "./pdf-stream.ts";
import { cleanPdfText } from "./pdf-text.ts";

/**
 * A term of a definition list or an option table, as a manual sets them: the term at one indent, its
 * definition at a deeper one, either on the same line after a wide gap ("-e      Exit immediately if ...") or
 * starting on the next line ("HISTSIZE" over "The number of commands to remember ...").
 */
export interface Term {
  /** the term's text: several lines when alternatives are stacked ("set [-abef...]" over "set [+abef...]") */
  text: string;
  /** where the term starts */
  at: number;
  /** where its definition starts */
  indent: number;
  /** stream items the term occupies (the definition's first line too, when it shares the term's line) */
  lines: number;
  /** the definition's text on the term's own line, if any */
  rest: string;
}

/** A definition is indented at least this far (in font sizes) beyond its term; a first-line indent is less. */
const DEEPER = 2;
const MAX_TERM_CHARS = 90;
const FORMULA = /\s=\s|[∑∏∂∫⇒⇔∈∉∀∃≤≥≠≈∩∪⊂⊆⊃→←↦√∞]/u;
const BULLET = /^(?:[•·▪◦‣\-–*]|\(?[0-9]{1,3}[.)]|\(?[a-zA-Z][.)]|\(?[ivx]{1,4}[.)])$/;

const lineAt = (items: StreamItem[], i: number): StreamLine | undefined => {
  const it = items[i];
  return it?.kind === "line" ? it : undefined;
};

const near = (a: number, b: number, size: number) => Math.abs(a - b) <= 0.4 * size;

/**
 * Finds the term that starts at a stream item, if one does. A term sits at an indent that three lines or more
 * start at, where a centred title does not; it never continues the sentence of the line before.
 */
export function createTermFinder(items: StreamItem[]): (i: number) => Term | null {
  const stops = indentStops(items);
  return (i) => {
    const l = lineAt(items, i);
    if (!l || !stops.has(Math.round(l.line.x)) || continuesSentence(lineAt(items, i - 1), l)) return null;
    return inlineTerm(items, i, l) ?? stackedTerm(items, i, l);
  };
}

/** The line before runs on into this one: a full line of the same paragraph whose sentence is not over. */
function continuesSentence(prev: StreamLine | undefined, l: StreamLine): boolean {
  if (!prev || prev.page !== l.page || l.first) return false;
  const close = l.line.y - prev.line.y <= 1.3 * Math.max(prev.flow.pitch, prev.line.size);
  const full = prev.line.right >= prev.flow.right - 0.12 * (prev.flow.right - prev.flow.left);
  return close && full && !/[.:!?]["”)]?$/.test(prev.text);
}

/** Line starts shared by three lines or more. */
function indentStops(items: StreamItem[]): Set<number> {
  const counts = new Map<number, number>();
  for (const it of items) {
    if (it.kind !== "line") continue;
    const x = Math.round(it.line.x);
    for (const k of [x - 1, x, x + 1]) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return new Set([...counts].filter(([, n]) => n >= 3).map(([x]) => x));
}

/**
 * "-e ‖ Exit immediately if ..." : the gap after the term reaches the definition's indent. A term that nearly
 * fills its indent leaves only a word space before its definition; where the entries around it put their
 * definitions tells where to cut it.
 */
function inlineTerm(items: StreamItem[], i: number, l: StreamLine): Term | null {
  let [head, ...tail] = l.line.frags;
  if (head && (tail.length === 0 || (tail[0]?.x ?? 0) - head.x < DEEPER * l.line.size)) {
    const indent = siblingIndent(items, i, l);
    const cut = indent === undefined ? null : splitFragment(head, indent);
    if (cut) [head, tail] = [cut[0], [cut[1], ...tail]];
  }
  const next = tail[0];
  if (!head || !next) return null;
  const size = l.line.size;
  const indent = next.x;
  if (indent - head.x < DEEPER * size || !isTermText(head.text)) return null;
  // the definition's next line, or the next entry, or the previous one, agrees on where definitions start
  const after = lineAt(items, i + 1);
  const before = lineAt(items, i - 1);
  const agrees = (o: StreamLine | undefined, sameTerm: boolean) =>
    !!o &&
    o.page >= l.page - 1 &&
    (sameTerm ? near(o.line.x, head.x, size) && startsAt(o, indent) : near(o.line.x, indent, size) || o.line.x > indent);
  const sibling = siblingIndent(items, i, l);
  const agreed = agrees(after, false) || agrees(after, true) || agrees(before, true);
  if (!agreed && !(sibling !== undefined && near(sibling, indent, size))) return null;
  const rest = cleanPdfText(tail.map((f) => f.text).join(" "));
  return { text: cleanPdfText(head.text), at: head.x, indent, lines: 1, rest };
}

/** Some text of the line starts at `x`: a fragment, or a run inside one. */
function startsAt(l: StreamLine, x: number): boolean {
  const size = l.line.size;
  return l.line.frags.some((f) => near(f.x, x, size) || !!f.joins?.some(([at]) => near(at, x, size)));
}

/** Where the definitions of the neighbouring entries (terms at the same indent) start. */
function siblingIndent(items: StreamItem[], i: number, l: StreamLine): number | undefined {
  const size = l.line.size;
  for (const j of [i - 1, i + 1, i - 2, i + 2]) {
    const o = lineAt(items, j);
    if (!o || !near(o.line.x, l.line.x, size)) continue;
    const second = o.line.frags[1];
    if (second && second.x - o.line.x >= DEEPER * size) return second.x;
    const below = lineAt(items, j + 1);
    if (below && below.line.x - o.line.x >= DEEPER * size) return below.line.x;
  }
  return undefined;
}

/** "HISTSIZE" alone on its line (or several alternatives stacked), the definition below it further right. */
function stackedTerm(items: StreamItem[], i: number, l: StreamLine): Term | null {
  const size = l.line.size;
  const texts: string[] = [];
  let j = i;
  for (;;) {
    const t = lineAt(items, j);
    if (!t || !near(t.line.x, l.line.x, size) || !isTermText(t.text) || isLong(t)) return null;
    texts.push(t.text);
    const next = lineAt(items, j + 1);
    if (!next) return null;
    if (next.line.x - l.line.x >= DEEPER * size) {
      return { text: texts.join(" "), at: l.line.x, indent: next.line.x, lines: texts.length, rest: "" };
    }
    if (texts.length >= 3) return null;
    j++;
  }
}

/** Reaches most of the way across its flow: a line of a paragraph, not a term. */
function isLong(l: StreamLine): boolean {
  return l.line.right > l.line.x + 0.7 * (l.flow.right - l.line.x) && l.line.right - l.line.x > 0.5 * (l.flow.right - l.flow.left);
}

function isTermText(text: string): boolean {
  const t = text.trim();
  // a rule drawn with dashes ("- - - - x") or a displayed formula is not a term
  if (!t || t.length > MAX_TERM_CHARS || /(?:[-–] ){3,}/.test(t) || FORMULA.test(t)) return false;
  // a synopsis cut inside its brackets ("export [" | "-fn] [name[=word]] ...") is not a term and its definition
  const opened = (c: string) => t.split(c).length - 1;
  if (opened("[") !== opened("]") || opened("(") !== opened(")")) return false;
  // three plain words are a phrase introducing a display ("The redirection operator"), not a term's name
  if (/^[\p{L}'’]+(?: [\p{L}'’]+){2,}$/u.test(t) && !/^[\p{Lu}\d_ ]+$/u.test(t)) return false;
  // a paragraph's last line ends a sentence; a term does not
  return !/[.:;,]$/.test(t) || /\.\.\.\]?$/.test(t);
}

export function isBullet(text: string): boolean {
  return BULLET.test(text.trim());
}
