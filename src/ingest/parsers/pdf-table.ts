import type { Fragment } from "./pdf-fragments.ts";
import type { Line } from "./pdf-layout.ts";
import { type Band, columnNames } from "./pdf-table-header.ts";

/** A table found among a flow's lines: its columns, their names (when it has a header) and its rows' cells. */
export interface Table {
  bands: Band[];
  names: string[] | null;
  rows: string[][];
  /** the flow's lines it was read from, header included */
  lines: Line[];
}

/** A flow's lines in order, with the runs that form tables taken out. */
export type FlowPart = { lines: Line[] } | { table: Table };

const HAS_TEXT = /[\p{L}\p{N}]/u;
const MIN_ROWS = 3;
const MAX_HEADER_LINES = 4;
/** A formula's symbols: aligned formulas are not tables. */
const MATH = /[∑∏∂∫⇒⇔∈∉∀∃≤≥≠≈∩∪⊂⊆⊃→←↦√∞]|^=|=$/u;
/** "Table 1: ...", "Tabelle 2", "Figure 3": a caption over the table, not a column's name. */
const CAPTION = /^(?:table|tab\.|tabelle|tableau|figure|fig\.|abbildung|exhibit|chart)\s*[\dIVXA-Z]/i;
/** Dot leaders that run a label or an amount up to the next column. */
const LEADERS = /\s*(?:\.\s?){3,}\.?\s*$|\s+\.\.\s*$|\s*…+\s*$/;

const cells = (l: Line) => l.frags.filter((f) => HAS_TEXT.test(f.text));
/** A number, an amount, a date, a code: a quarter or more of the cell's letters and digits are digits. */
const isFigure = (text: string) => {
  const digits = text.match(/\p{N}/gu)?.length ?? 0;
  return digits > 0 && digits >= 0.25 * (text.match(/[\p{L}\p{N}]/gu)?.length ?? 0);
};
const hasDigit = (l: Line) => l.frags.some((f) => isFigure(f.text));
/** A table row: two or more cells, one of them a number, a date or an amount. */
const isDataLine = (l: Line) => cells(l).length >= 2 && hasDigit(l);

/**
 * Tables among a flow's lines, from the positions of their cells: rows of separate cells, at least one with
 * a figure, whose cells stay inside common column bands; three or more columns (two when the second holds
 * figures); header lines above them name the columns. Aligned text that is not a table stays lines.
 */
export function findTables(lines: Line[]): FlowPart[] {
  const parts: FlowPart[] = [];
  let plainFrom = 0;
  let i = 0;
  while (i < lines.length) {
    const found = isDataLine(lines[i] as Line) ? tableAt(lines, i) : null;
    if (!found || !("bands" in found)) {
      // the lines of a seed that is no table are no table from any of its later lines either
      i = Math.max(i + 1, found?.next ?? 0);
      continue;
    }
    const table = found;
    const start = lines.indexOf(table.lines[0] as Line);
    if (start > plainFrom) parts.push({ lines: lines.slice(plainFrom, start) });
    parts.push({ table });
    i = lines.indexOf(table.lines.at(-1) as Line) + 1;
    plainFrom = i;
  }
  if (plainFrom < lines.length) parts.push({ lines: lines.slice(plainFrom) });
  return parts;
}

function tableAt(lines: Line[], first: number): Table | { next: number } | null {
  // the seed: data lines, with at most two other lines between them (wrapped cells); a header ends it
  const seed: Line[] = [];
  let gap = 0;
  let end = first;
  for (let i = first; i < lines.length && gap <= 2; i++) {
    const l = lines[i] as Line;
    if (isDataLine(l)) {
      seed.push(l);
      gap = 0;
      end = i + 1;
    } else if (cells(l).length >= 2) break;
    else gap++;
  }
  if (seed.length < 2) return null;
  const bands = bandsOf(seed);
  if (!isTabular(seed, bands)) return { next: end };
  const header = headerAbove(lines, first, bands);
  // two rows under a header of their own are a table too (one that goes on over the page); a list of two
  // columns (a table of contents, label and value) is a table only with a header naming them
  const headed = header.some((l) => cells(l).length >= 2);
  if (seed.length < (headed ? 2 : MIN_ROWS) || (bands.length === 2 && !headed)) return null;
  const body = extend(lines, first, bands);
  const rows = toRows(body, bands);
  if (rows.filter((r) => r.filter(Boolean).length >= 2).length < (headed ? 2 : MIN_ROWS)) return null;
  return { bands, names: header.length > 0 ? columnNames(header, bands) : null, rows, lines: [...header, ...body] };
}

/**
 * Columns: the x ranges that the data lines' cells cover, split where (almost) no line has ink. A cell whose
 * text runs past its column (a long name a spreadsheet clipped) does not join two columns; cells of a column
 * that only a few rows fill (the totals row) still make one.
 */
function bandsOf(seed: Line[]): Band[] {
  const spans = seed.flatMap(cells).map((f) => ({ x: f.x, right: f.right }));
  const core = union(spans, Math.floor(0.05 * seed.length));
  const overlaps = (s: Band) => core.some((b) => s.x < b.right && s.right > b.x);
  const sparse = union(
    spans.filter((s) => !overlaps(s)),
    0,
  );
  return [...core, ...sparse].sort((a, b) => a.x - b.x);
}

/** The x ranges covered by more than `quiet` of the spans (all covered ones when `quiet` is 0), joined where they touch. */
function union(spans: Band[], quiet: number): Band[] {
  // a sweep over the span edges: +1 where a span starts, -1 where it ends
  const events = spans.flatMap((s): [number, number][] => [
    [s.x, 1],
    [s.right, -1],
  ]);
  events.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: Band[] = [];
  let covered = 0;
  for (let k = 0; k < events.length; k++) {
    const [at, step] = events[k] as [number, number];
    covered += step;
    const next = events[k + 1]?.[0];
    if (next === undefined || next <= at) continue;
    if (covered <= quiet && (quiet > 0 || covered === 0) && next - at > 0.5) continue;
    const last = out.at(-1);
    if (last && at <= last.right + 0.5) last.right = next;
    else out.push({ x: at, right: next });
  }
  return out;
}

function isTabular(seed: Line[], bands: Band[]): boolean {
  if (bands.length < 2) return false;
  const used = seed.map((l) => new Set(cells(l).map((f) => bandOf(f, bands))));
  if (used.filter((u) => u.size >= 2).length < 0.6 * seed.length) return false;
  // columns that most rows fill: gaps that line up by chance in justified prose leave them half empty
  const steady = bands.filter((_, j) => used.filter((u) => u.has(j)).length >= 0.5 * seed.length).length;
  if (steady < Math.min(3, bands.length)) return false;
  // rows of a table fill most of its columns; scattered symbols of a formula or a plot's tick labels do not
  const fill = used.reduce((n, u) => n + u.size, 0) / (seed.length * bands.length);
  if (fill < 0.5) return false;
  const all = seed.flatMap(cells);
  if (all.filter((f) => MATH.test(f.text)).length > 0.15 * all.length) return false;
  if (bands.length >= 3) return true;
  // two columns: a label and a figure
  const figures = seed.filter((l) => cells(l).some((f) => bandOf(f, bands) === 1 && /^[^\p{L}]*\d[\d,.\s%$€£-]*$/u.test(f.text)));
  return figures.length >= 0.8 * seed.length;
}

function bandOf(f: Fragment, bands: Band[]): number {
  const c = (f.x + f.right) / 2;
  let best = 0;
  let bestDistance = Number.POSITIVE_INFINITY;
  bands.forEach((b, j) => {
    const d = c < b.x ? b.x - c : c > b.right ? c - b.right : 0;
    if (d < bestDistance) [best, bestDistance] = [j, d];
  });
  return best;
}

/** A line belongs to the table when each of its cells lies (mostly: `share`) within one column. */
function fits(line: Line, bands: Band[], share = 0.6): boolean {
  return cells(line).every((f) => {
    const width = Math.max(1, f.right - f.x);
    const inside = Math.max(...bands.map((b) => Math.min(f.right, b.right) - Math.max(f.x, b.x)));
    const touched = bands.filter((b) => f.x < b.right + 0.5 * f.size && f.right > b.x - 0.5 * f.size).length;
    return touched <= 1 || inside >= share * width;
  });
}

/** The table's lines from its first data line down, while they fit its columns and keep its row spacing. */
function extend(lines: Line[], first: number, bands: Band[]): Line[] {
  const body: Line[] = [lines[first] as Line];
  const pitches: number[] = [];
  for (let i = first + 1; i < lines.length; i++) {
    const l = lines[i] as Line;
    const prev = body.at(-1) as Line;
    const step = l.y - prev.y;
    const usual = pitches.length > 0 ? (pitches.sort((a, b) => a - b)[Math.floor(pitches.length / 2)] ?? step) : 2 * l.size;
    if (step > 3.5 * Math.max(usual, l.size) || !fits(l, bands)) break;
    body.push(l);
    pitches.push(step);
  }
  // a lone line at the end, in the first column and set apart, is the next paragraph, not a wrapped cell
  const usual = pitches.sort((a, b) => a - b)[Math.floor(pitches.length / 2)] ?? 0;
  for (;;) {
    const last = body.at(-1) as Line;
    const before = body.at(-2);
    const only = cells(last);
    const lone = only.length === 1 && !hasDigit(last) && bandOf(only[0] as Fragment, bands) === 0;
    if (!before || !lone || last.y - before.y <= 1.3 * usual) break;
    body.pop();
  }
  return body;
}

/**
 * Header lines: the lines without figures just above the first row, close together, over the columns. A lone
 * line set apart or in a larger type is the table's title, not part of its header.
 */
function headerAbove(lines: Line[], first: number, bands: Band[]): Line[] {
  const header: Line[] = [];
  let below = lines[first] as Line;
  for (let i = first - 1; i >= 0 && header.length < MAX_HEADER_LINES; i--) {
    const l = lines[i] as Line;
    const gap = below.y - l.y;
    // a header may stand a little apart from the first row; its own lines are close together
    const apart = header.length === 0 ? 3.5 : 2.2;
    if (hasDigit(l) || cells(l).length === 0 || gap > apart * Math.max(l.size, below.size)) break;
    if (cells(l).length === 1) {
      const f = cells(l)[0] as Fragment;
      const over = bands.filter((b) => f.x < b.right && f.right > b.x).length;
      const title =
        over >= 3 || CAPTION.test(f.text) || l.size > 1.15 * below.size || (header.length === 0 ? !fits(l, bands, 1) : gap > 1.6 * l.size);
      if (title) break;
    }
    header.unshift(l);
    below = l;
  }
  return header;
}

/** Rows of cell texts: a line with cells in two or more columns starts a row, a line with one continues it. */
function toRows(body: Line[], bands: Band[]): string[][] {
  const rows: string[][] = [];
  for (const line of body) {
    const parts: string[][] = bands.map(() => []);
    for (const f of line.frags) parts[bandOf(f, bands)]?.push(f.text);
    const filled = parts.filter((p) => HAS_TEXT.test(p.join(""))).length;
    const last = rows.at(-1);
    if (filled < 2 && last) {
      parts.forEach((p, j) => {
        if (p.length > 0) last[j] = [last[j], ...p].filter(Boolean).join(" ");
      });
    } else rows.push(parts.map((p) => p.join(" ")));
  }
  return rows.map((r) => r.map(cleanCell));
}

function cleanCell(text: string): string {
  return text.replace(LEADERS, "").replace(/;\s/g, ", ").replace(/\s+/g, " ").trim();
}
