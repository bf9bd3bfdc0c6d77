/**
 * pdf.js text items turned into positioned text runs in reading space: x grows rightwards along the page's
 * main writing direction, y grows downwards, whatever the page's /Rotate or a landscape table drawn sideways.
 */

/** The parts of a pdf.js TextItem this module reads. */
export interface RawItem {
  str: string;
  transform: number[];
  width: number;
  fontName: string;
}

/** A run of text on one baseline, as pdf.js drew it, in reading space. */
export interface Run {
  x: number;
  /** baseline */
  y: number;
  w: number;
  /** font size: the item's height in page units */
  size: number;
  text: string;
  font: string;
}

export interface PageRuns {
  width: number;
  height: number;
  /** runs in the page's main direction, in drawing order */
  runs: Run[];
  /** text drawn in another direction (a sideways label, a margin stamp), in drawing order */
  aside: string[];
}

type Matrix = [number, number, number, number, number, number];

function multiply(m: Matrix, n: number[]): Matrix {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = n;
  return [
    m[0] * a + m[2] * b,
    m[1] * a + m[3] * b,
    m[0] * c + m[2] * d,
    m[1] * c + m[3] * d,
    m[0] * e + m[2] * f + m[4],
    m[1] * e + m[3] * f + m[5],
  ];
}

/** 0..3: how many quarter turns clockwise the text's writing direction is from left-to-right in the viewport. */
function quarterTurns(m: Matrix): number {
  const angle = Math.atan2(m[1], m[0]);
  return (Math.round(angle / (Math.PI / 2)) + 4) % 4;
}

/** Rotates a viewport point so that text written `turns` quarter turns clockwise reads left to right. */
function unturn(x: number, y: number, page: { turns: number; width: number; height: number }): [number, number] {
  const { turns, width, height } = page;
  if (turns === 1) return [y, width - x];
  if (turns === 2) return [width - x, height - y];
  if (turns === 3) return [height - y, x];
  return [x, y];
}

/**
 * `viewport` is pdf.js's scale-1 viewport transform (it applies /Rotate and flips y downwards). The direction
 * most of the text is written in becomes the page's reading direction; a page of sideways table rows reads
 * like any other page.
 */
export function toPageRuns(items: RawItem[], viewport: { transform: number[]; width: number; height: number }): PageRuns {
  const { width, height } = viewport;
  const placed = items
    .filter((it) => it.str.length > 0)
    .map((it) => {
      const m = multiply(viewport.transform as Matrix, it.transform);
      return { it, m, turns: quarterTurns(m) };
    });
  const votes = [0, 0, 0, 0];
  for (const p of placed) votes[p.turns] = (votes[p.turns] ?? 0) + p.it.str.trim().length;
  const main = votes.indexOf(Math.max(...votes));
  const [w, h] = main % 2 === 1 ? [height, width] : [width, height];
  const runs: Run[] = [];
  const aside: string[] = [];
  for (const { it, m, turns } of placed) {
    if (turns !== main) {
      if (it.str.trim()) aside.push(it.str);
      continue;
    }
    const [x, y] = unturn(m[4], m[5], { turns: main, width, height });
    runs.push({ x, y, w: Math.abs(it.width), size: Math.hypot(m[2], m[3]) || 1, text: it.str, font: it.fontName });
  }
  return { width: w, height: h, runs, aside };
}
