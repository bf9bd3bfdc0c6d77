import { type Fragment, RAISED } from "./pdf-fragments.ts";

/** One line of text: fragments on one baseline, left to right. */
export interface Line {
  x: number;
  right: number;
  y: number;
  size: number;
  frags: Fragment[];
}

/** Lines meant to be read top to bottom: a whole page, a band of it, or one column. */
export interface Flow {
  lines: Line[];
  /** a column of a multi-column band: its last line may run on into the next column */
  column: boolean;
}

/** A column gutter is at least this wide, in font sizes. */
const MIN_GUTTER = 0.4;
/** Prose columns: most of their text is in long fragments (lines), not short cells or terms. */
const PROSE_FRAGMENT = 25;
const PROSE_SHARE = 0.6;
/** White space this tall (in font sizes) across the whole page ends a run of columns. */
const SECTION_GAP = 2;

type Span = [number, number];

interface Band {
  /** the band's own fragments (none for bands merged into a section's outline) */
  frags: Fragment[];
  /** median font size, for gutter widths */
  size: number;
  /** x ranges no fragment covers, between the band's leftmost and rightmost ink */
  free: Span[];
  left: number;
  right: number;
}

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

/** Fragments grouped by vertical overlap: one line, or the interleaved lines of columns with offset baselines. */
function bands(frags: Fragment[]): Fragment[][] {
  const sorted = [...frags].sort((a, b) => top(a) - top(b));
  const out: Fragment[][] = [];
  let bottom = Number.NEGATIVE_INFINITY;
  for (const f of sorted) {
    const last = out.at(-1);
    if (last && top(f) < bottom) {
      last.push(f);
      bottom = Math.max(bottom, f.y + 0.2 * f.size);
    } else {
      out.push([f]);
      bottom = f.y + 0.2 * f.size;
    }
  }
  return out;
}

const top = (f: Fragment) => f.y - 0.75 * f.size;

function toBand(frags: Fragment[]): Band {
  const spans = frags.map((f): Span => [f.x, f.right]).sort((a, b) => a[0] - b[0]);
  const free: Span[] = [];
  let reach = spans[0]?.[1] ?? 0;
  for (const [x, right] of spans.slice(1)) {
    if (x > reach) free.push([reach, x]);
    reach = Math.max(reach, right);
  }
  return { frags, size: medianSize(frags), free, left: spans[0]?.[0] ?? 0, right: reach };
}

/**
 * Consecutive bands merged while they keep at least one gutter in common and no wide strip of white runs
 * across the page between them (a masthead above the columns is not their first line).
 */
function sections(groups: Fragment[][]): Band[][] {
  const out: Band[][] = [];
  let merged: Band | undefined;
  let bottom = Number.NEGATIVE_INFINITY;
  for (const group of groups) {
    const band = toBand(group);
    const apart = Math.min(...group.map(top)) - bottom > SECTION_GAP * medianSize(group);
    bottom = Math.max(...group.map((f) => f.y + 0.2 * f.size));
    const joined = merged && !apart ? join(merged, band) : null;
    if (joined) {
      merged = joined;
      out.at(-1)?.push(band);
    } else {
      merged = band;
      out.push([band]);
    }
  }
  return out;
}

/** The outline of two bands together (their extent and shared gutters), or null when they share no gutter. */
function join(a: Band, b: Band): Band | null {
  const free = commonFree(a, b);
  if (free.length === 0) return null;
  return { frags: [], size: Math.min(a.size, b.size), free, left: Math.min(a.left, b.left), right: Math.max(a.right, b.right) };
}

/** The outline of a section's bands: the gutters they all share. */
function merge(bands: Band[]): Band {
  let merged = bands[0] as Band;
  for (const b of bands.slice(1))
    merged = join(merged, b) ?? { ...merged, frags: [], free: [], left: Math.min(merged.left, b.left), right: Math.max(merged.right, b.right) };
  return merged;
}

/**
 * Gutters of either band that the other leaves open: a gap between two fragments of one band where the other
 * has a gap too, or no ink at all (a line of the left column alone keeps the gutter open).
 */
function commonFree(a: Band, b: Band): Span[] {
  if (a.free.length === 0 && b.free.length === 0) return [];
  const size = Math.min(a.size, b.size);
  const shared = [...within(a.free, b), ...within(b.free, a)].filter(([x, r]) => r - x >= MIN_GUTTER * size);
  return mergeSpans(shared);
}

/** The parts of `spans` where `band` has no ink. */
function within(spans: Span[], band: Band): Span[] {
  const open: Span[] = [[Number.NEGATIVE_INFINITY, band.left], ...band.free, [band.right, Number.POSITIVE_INFINITY]];
  const out: Span[] = [];
  for (const s of spans)
    for (const o of open) {
      const lo = Math.max(s[0], o[0]);
      const hi = Math.min(s[1], o[1]);
      if (hi > lo) out.push([lo, hi]);
    }
  return out;
}

function mergeSpans(spans: Span[]): Span[] {
  const sorted = spans.sort((a, b) => a[0] - b[0]);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1]);
    else out.push([s[0], s[1]]);
  }
  return out;
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

function medianSize(frags: Fragment[]): number {
  const sizes = frags.map((f) => f.size).sort((a, b) => a - b);
  return sizes[Math.floor(sizes.length / 2)] ?? 10;
}

/** Fragments of one flow as lines: same baseline (a raised superscript included), left to right. */
export function toLines(frags: Fragment[]): Line[] {
  const sorted = [...frags].sort((a, b) => a.y - b.y || a.x - b.x);
  const lines: Line[] = [];
  for (const f of sorted) {
    const last = lines.at(-1);
    if (last && Math.abs(last.y - f.y) <= RAISED * Math.max(last.size, f.size)) {
      last.frags.push(f);
      last.x = Math.min(last.x, f.x);
      last.right = Math.max(last.right, f.right);
      last.size = Math.max(last.size, f.size);
    } else lines.push({ x: f.x, right: f.right, y: f.y, size: f.size, frags: [f] });
  }
  for (const l of lines) l.frags.sort((a, b) => a.x - b.x);
  return lines;
}
