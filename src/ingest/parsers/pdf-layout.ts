import type { Fragment } from "./pdf-fragments.ts";
import { type Band, bands, MIN_GUTTER, medianSize, merge, type Span, sections } from "./pdf-gutters.ts";
import { type Line, toLines } from "./pdf-lines.ts";

/** Lines meant to be read top to bottom: a whole page, a band of it, or one column. */
export interface Flow {
  lines: Line[];
  /** a column of a multi-column band: its last line may run on into the next column */
  column: boolean;
}

/** Prose columns: most of their text is in long fragments (lines), not short cells or terms. */
const PROSE_FRAGMENT = 25;
const PROSE_SHARE = 0.6;

/**
 * Reading order of a page: bands of text that share a column gutter are read column by column, everything
 * else top to bottom. A gutter splits a band only when the text on each side reads as prose; the gaps of a
 * table or of a term and its definition leave the lines whole.
 */
export function layoutFlows(frags: Fragment[], pageWidth: number): Flow[] {
  const flows: Flow[] = [];
  let plain: Fragment[] = [];
  const keep = (bands: Band[]) => {
    for (const b of bands) for (const f of b.frags) plain.push(f);
  };
  const flushPlain = () => {
    if (plain.length > 0) flows.push({ lines: toLines(plain), column: false });
    plain = [];
  };
  for (const section of sections(bands(frags))) {
    const split = splitColumns(section, pageWidth);
    if (!split) {
      keep(section);
      continue;
    }
    keep(split.before);
    flushPlain();
    for (const piece of split.pieces) for (const flow of layoutFlows(piece, pageWidth)) flows.push({ lines: flow.lines, column: true });
    keep(split.after);
  }
  flushPlain();
  return flows;
}

interface Split {
  before: Band[];
  pieces: Fragment[][];
  after: Band[];
}

/**
 * Columns of a run of bands, without the bands at its top or bottom that do not start at a column's left
 * edge: a table's title and header over the columns' last lines share their gutters by chance.
 */
function splitColumns(bands: Band[], pageWidth: number): Split | null {
  let cut = columnPieces(bands, pageWidth);
  if (!cut) return null;
  const gutters = cut.gutters;
  const edges = cut.pieces.map(leftEdge);
  const fits = (band: Band) =>
    band.frags.every((f) => {
      const i = pieceOf(f, gutters);
      const edge = edges[i] ?? f.x;
      return f.x >= edge - 0.5 * f.size && f.x <= edge + 2.5 * f.size;
    });
  let first = 0;
  let last = bands.length;
  while (first < last && !fits(bands[first] as Band)) first++;
  while (last > first && !fits(bands[last - 1] as Band)) last--;
  if (first > 0 || last < bands.length) {
    cut = last > first ? columnPieces(bands.slice(first, last), pageWidth) : null;
    if (!cut) return null;
  }
  return { before: bands.slice(0, first), pieces: cut.pieces, after: bands.slice(last) };
}

/** Where most of a column's lines start (indented first lines and centred titles start further right). */
function leftEdge(frags: Fragment[]): number {
  const starts = toLines(frags)
    .map((l) => l.x)
    .sort((a, b) => a - b);
  return starts[Math.floor(starts.length * 0.2)] ?? 0;
}

function pieceOf(f: Fragment, gutters: Span[]): number {
  const centre = (f.x + f.right) / 2;
  const i = gutters.findIndex(([x]) => centre < x);
  return i < 0 ? gutters.length : i;
}

/** The section cut at its gutters into prose columns, left to right; null when it is not columns of prose. */
function columnPieces(bands: Band[], pageWidth: number): { pieces: Fragment[][]; gutters: Span[] } | null {
  const section = merge(bands);
  if (section.free.length === 0) return null;
  const frags = bands.flatMap((b) => b.frags);
  const size = medianSize(frags);
  const gutters = section.free.filter(([x, r]) => r - x >= MIN_GUTTER * size);
  if (gutters.length === 0) return null;
  const pieces: Fragment[][] = gutters.map(() => []);
  pieces.push([]);
  for (const f of frags) (pieces[pieceOf(f, gutters)] as Fragment[]).push(f);
  const prose = pieces.every((p) => isProse(p, pageWidth));
  // a column's lines run up to its gutter; two sentences of one justified line only leave a gap here and there
  const filled = pieces.slice(0, -1).every(fillsToGutter);
  // a narrow gutter is believed only over many lines: a few lines can leave a gap between words by chance
  const narrow = gutters.some(([x, r]) => r - x < size);
  const tall = pieces.every((p) => toLines(p).length >= 5);
  return prose && filled && (tall || !narrow) ? { pieces, gutters } : null;
}

function fillsToGutter(frags: Fragment[]): boolean {
  const lines = toLines(frags);
  const left = Math.min(...lines.map((l) => l.x));
  const right = Math.max(...lines.map((l) => l.right));
  const near = lines.filter((l) => right - l.right <= 0.15 * (right - left)).length;
  return near >= 0.5 * lines.length;
}

function isProse(frags: Fragment[], pageWidth: number): boolean {
  if (frags.length < 2) return false;
  let long = 0;
  let all = 0;
  let left = Number.POSITIVE_INFINITY;
  let right = Number.NEGATIVE_INFINITY;
  for (const f of frags) {
    all += f.text.length;
    if (f.text.length >= PROSE_FRAGMENT) long += f.text.length;
    left = Math.min(left, f.x);
    right = Math.max(right, f.right);
  }
  return long >= PROSE_SHARE * all && right - left >= 0.1 * pageWidth;
}
