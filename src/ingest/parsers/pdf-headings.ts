import { isFieldLine } from "../../shared/field-line.ts";
import { DATE_LINE } from "./pdf-meta.ts";
import type { StreamLine } from "./pdf-stream.ts";

/** Larger than the body text by this factor: a title or a heading. */
const LARGER = 1.15;
const MAX_HEADING_WORDS = 20;

/**
 * How a document sets its headings apart from its text: a larger type (each larger size a level, largest
 * first), or a line further left than any paragraph (a manual's section titles), each such position a level.
 */
export interface HeadingStyle {
  body: number;
  sizes: number[];
  outdents: number[];
  /** where the document's paragraphs start, outside of columns */
  proseLeft: number;
}

const words = (t: string) => t.split(/\s+/).filter(Boolean).length;
const endsSentence = (t: string) => /[.!?;,]$/.test(t) && !/\.\.\.$/.test(t);

export function headingStyle(lines: StreamLine[], body: number): HeadingStyle {
  const sizes = new Set<number>();
  for (const l of lines) if (isLargeHeading(l, body)) sizes.add(Math.round(typeSize(l) * 2) / 2);
  // paragraphs: lines of running text, most of the way across their flow
  const prose = lines
    .filter((l) => !l.flow.column && l.line.right - l.line.x >= 0.6 * (l.flow.right - l.flow.left) && words(l.text) >= 6)
    .map((l) => l.line.x)
    .sort((a, b) => a - b);
  const proseLeft = prose[Math.floor(prose.length * 0.05)] ?? 0;
  const outdents = new Set<number>();
  for (const l of lines) if (isOutdented(l, proseLeft, body)) outdents.add(Math.round(l.line.x));
  return { body, sizes: [...sizes].sort((a, b) => b - a), outdents: [...outdents].sort((a, b) => a - b), proseLeft };
}

function isLargeHeading(l: StreamLine, body: number): boolean {
  return (
    typeSize(l) >= LARGER * body &&
    words(l.text) <= MAX_HEADING_WORDS &&
    /\p{L}{2}/u.test(l.text) &&
    !/\.$/.test(l.text) &&
    !isFormFields(l.text) &&
    // a dateline under a title is when the document was written, not a section
    !DATE_LINE.test(l.text.trim())
  );
}

/**
 * A form's fields set in a larger type ("Case Tracking Number: 150109-DSP-Milw-505 Agency: Bureau of …"): a field
 * whose value holds a number, or two fields on one line. A title with a colon ("BERT: Pre-training of …",
 * "Chapter 3: The Return") stays a heading.
 */
function isFormFields(text: string): boolean {
  if (!isFieldLine(text)) return false;
  const [label = "", ...rest] = text.split(/:\s+/);
  return rest.length >= 2 || (!/\d/.test(label) && /\d/.test(rest.join(" ")));
}

/** The size most of a line's characters are set in: one large glyph (a caret, a drop cap) does not make a heading. */
function typeSize(l: StreamLine): number {
  const frags = [...l.line.frags].sort((a, b) => a.size - b.size);
  const half = frags.reduce((n, f) => n + f.text.length, 0) / 2;
  let seen = 0;
  for (const f of frags) {
    seen += f.text.length;
    if (seen >= half) return f.size;
  }
  return l.line.size;
}

function isOutdented(l: StreamLine, proseLeft: number, body: number): boolean {
  return (
    !l.flow.column &&
    l.line.x < proseLeft - body &&
    l.line.frags.length === 1 &&
    words(l.text) <= 10 &&
    !endsSentence(l.text) &&
    /^\p{Lu}/u.test(l.text) &&
    !isFieldLine(l.text) &&
    !DATE_LINE.test(l.text.trim())
  );
}

/** The heading level of a line (1 is the top), or 0 for a line of text. */
export function headingLevel(l: StreamLine, style: HeadingStyle): number {
  if (isLargeHeading(l, style.body)) {
    const i = style.sizes.indexOf(Math.round(typeSize(l) * 2) / 2);
    if (i >= 0) return i + 1;
  }
  if (isOutdented(l, style.proseLeft, style.body)) {
    const i = style.outdents.indexOf(Math.round(l.line.x));
    if (i >= 0) return style.sizes.length + i + 1;
  }
  return 0;
}
