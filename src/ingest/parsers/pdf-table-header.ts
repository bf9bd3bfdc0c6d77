import type { Fragment } from "./pdf-fragments.ts";
import type { Line } from "./pdf-lines.ts";

import type { Column } from "./pdf-table-columns.ts";

const centre = (s: { x: number; right: number }) => (s.x + s.right) / 2;

/**
 * Column names from the header lines over a table's columns, each line's words put over the column they name:
 * a line with one cell per column in order; otherwise each cell over the columns nearest to it, and a group
 * heading ("Pre-Pawn" over Handgun, Long Gun, Other) over the columns centred under it. Lines stack top to
 * bottom: "Pre-Pawn Handgun", "Cost on U.S. operators".
 */
export function columnNames(header: Line[], bands: Column[]): string[] {
  const parts: string[][] = bands.map(() => []);
  let anchors = bands.map(centre);
  // a line with exactly one cell per column says where the header centres its names
  for (const line of header) if (line.frags.length === bands.length) anchors = line.frags.map(centre);
  for (const line of header) {
    const owners = line.frags.length === bands.length ? line.frags.map((_, j) => [j]) : spans(line.frags, anchors);
    line.frags.forEach((f, i) => {
      for (const j of owners[i] ?? []) parts[j]?.push(f.text);
    });
  }
  return parts.map((p) =>
    p
      .join(" ")
      .replace(/[:;]/g, " ")
      .replace(/(^|\s)\*+/g, "$1")
      .replace(/\s+/g, " ")
      .trim(),
  );
}

/** For each header cell, the columns it names. */
function spans(frags: Fragment[], anchors: number[]): number[][] {
  const mine: number[][] = frags.map(() => []);
  anchors.forEach((a, j) => {
    let best = 0;
    frags.forEach((f, i) => {
      if (Math.abs(centre(f) - a) < Math.abs(centre(frags[best] as Fragment) - a)) best = i;
    });
    mine[best]?.push(j);
  });
  return mine.map((cols, i) => {
    const f = frags[i] as Fragment;
    const c = centre(f);
    if (cols.length === 0) return cols;
    const nearest = cols.reduce((a, b) => (Math.abs((anchors[a] ?? 0) - c) <= Math.abs((anchors[b] ?? 0) - c) ? a : b));
    // a group heading is centred over its columns (as far out on the left as on the right), and close to them
    const left = Math.max(0, ...cols.map((j) => c - (anchors[j] ?? c)));
    const right = Math.max(0, ...cols.map((j) => (anchors[j] ?? c) - c));
    const reach = Math.min(left, right, 2 * (f.right - f.x)) + 0.3 * f.size;
    return cols.filter((j) => j === nearest || Math.abs((anchors[j] ?? 0) - c) <= reach);
  });
}
