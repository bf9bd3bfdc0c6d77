import { type Fragment, RAISED } from "./pdf-fragments.ts";

/** One line of text: fragments on one baseline, left to right. */
export interface Line {
  x: number;
  right: number;
  y: number;
  size: number;
  frags: Fragment[];
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
