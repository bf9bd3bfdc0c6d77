import type { Fragment } from "./pdf-fragments.ts";
import type { Line } from "./pdf-lines.ts";

/** A table column: the x range its cells cover. */
export interface Column {
  x: number;
  right: number;
}

/** Text with a letter or a digit: a lone "×" or ":" is no cell. */
export const hasText = (text: string) => /[\p{L}\p{N}]/u.test(text);
/** The fragments of a line that hold text. */
export const cells = (l: Line) => l.frags.filter((f) => hasText(f.text));

/**
 * Columns: the x ranges that the data lines' cells cover, split where (almost) no line has ink. A cell whose
 * text runs past its column (a long name a spreadsheet clipped) does not join two columns; cells of a column
 * that only a few rows fill (the totals row) still make one.
 */
export function columnsOf(seed: Line[]): Column[] {
  const spans = seed.flatMap(cells).map((f) => ({ x: f.x, right: f.right }));
  const core = union(spans, Math.floor(0.05 * seed.length));
  const overlaps = (s: Column) => core.some((b) => s.x < b.right && s.right > b.x);
  const sparse = union(
    spans.filter((s) => !overlaps(s)),
    0,
  );
  return [...core, ...sparse].sort((a, b) => a.x - b.x);
}

/** The x ranges covered by more than `quiet` of the spans (all covered ones when `quiet` is 0), joined where they touch. */
function union(spans: Column[], quiet: number): Column[] {
  // a sweep over the span edges: +1 where a span starts, -1 where it ends
  const events = spans.flatMap((s): [number, number][] => [
    [s.x, 1],
    [s.right, -1],
  ]);
  events.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: Column[] = [];
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

export function columnOf(f: Fragment, bands: Column[]): number {
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
export function fits(line: Line, bands: Column[], share = 0.6): boolean {
  return cells(line).every((f) => {
    const width = Math.max(1, f.right - f.x);
    const inside = Math.max(...bands.map((b) => Math.min(f.right, b.right) - Math.max(f.x, b.x)));
    const touched = bands.filter((b) => f.x < b.right + 0.5 * f.size && f.right > b.x - 0.5 * f.size).length;
    return touched <= 1 || inside >= share * width;
  });
}
