import type { Fragment } from "./pdf-fragments.ts";
import type { Line } from "./pdf-lines.ts";
import { type Column, cells, columnOf, columnsOf, fits, hasText } from "./pdf-table-columns.ts";
import { columnNames } from "./pdf-table-header.ts";

/** A table found among a flow's lines: its columns, their names (when it has a header) and its rows' cells. */
export interface Table {
  bands: Column[];
  names: string[] | null;
  rows: string[][];
  /** the flow's lines it was read from, header included */
  lines: Line[];
}

/** A flow's lines in order, with the runs that form tables taken out. */
export type FlowPart = { lines: Line[] } | { table: Table };

const MIN_ROWS = 3;
const MAX_HEADER_LINES = 4;
/** A formula's symbols: aligned formulas are not tables. */
const MATH = /[∑∏∂∫⇒⇔∈∉∀∃≤≥≠≈∩∪⊂⊆⊃→←↦√∞]|^=|=$/u;
/** "Table 1: ...", "Tabelle 2", "Figure 3": a caption over the table, not a column's name. */
const CAPTION = /^(?:table|tab\.|tabelle|tableau|figure|fig\.|abbildung|exhibit|chart)\s*[\dIVXA-Z]/i;
/** Dot leaders that run a label or an amount up to the next column. */
const LEADERS = /\s*(?:\.\s?){3,}\.?\s*$|\s+\.\.\s*$|\s*…+\s*$/;

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
  const bands = columnsOf(seed);
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

function isTabular(seed: Line[], bands: Column[]): boolean {
  if (bands.length < 2) return false;
  const used = seed.map((l) => new Set(cells(l).map((f) => columnOf(f, bands))));
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
  const figures = seed.filter((l) => cells(l).some((f) => columnOf(f, bands) === 1 && /^[^\p{L}]*\d[\d,.\s%$€£-]*$/u.test(f.text)));
  return figures.length >= 0.8 * seed.length;
}

/** The table's lines from its first data line down, while they fit its columns and keep its row spacing. */
function extend(lines: Line[], first: number, bands: Column[]): Line[] {
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
    const lone = only.length === 1 && !hasDigit(last) && columnOf(only[0] as Fragment, bands) === 0;
    if (!before || !lone || last.y - before.y <= 1.3 * usual) break;
    body.pop();
  }
  return body;
}

/**
 * Header lines: the lines without figures just above the first row, close together, over the columns. A lone
 * line set apart or in a larger type is the table's title, not part of its header.
 */
function headerAbove(lines: Line[], first: number, bands: Column[]): Line[] {
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
function toRows(body: Line[], bands: Column[]): string[][] {
  const rows: string[][] = [];
  for (const line of body) {
    const parts: string[][] = bands.map(() => []);
    for (const f of line.frags) parts[columnOf(f, bands)]?.push(f.text);
    const filled = parts.filter((p) => hasText(p.join(""))).length;
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
