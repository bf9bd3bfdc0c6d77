import type { Run } from "./pdf-items.ts";

/**
 * A piece of one line that reads as one: runs on the same baseline with no more than a word space between
 * them. A wider gap separates fragments: a table cell from the next, a term from its definition, one text
 * column from the next.
 */
export interface Fragment {
  x: number;
  right: number;
  /** baseline */
  y: number;
  size: number;
  text: string;
  /** where runs that were joined into this fragment start: [x, offset in text] */
  joins?: [number, number][];
}

/** Runs closer than this (in font sizes) belong to one fragment; a column gutter or cell gap is wider. */
const WORD_GAP = 0.6;
/** A gap wider than this between two runs of one fragment is a word space, even when neither run has one. */
const SPACE_GAP = 0.12;
/** A superscript sits up to this far (in font sizes) above its line's baseline; the next line is further. */
export const RAISED = 0.55;

interface Cluster {
  y: number;
  size: number;
  runs: Run[];
}

/** Fragments of a page in top-to-bottom, left-to-right order. Whitespace-only runs only tell where spaces are. */
export function toFragments(runs: Run[]): Fragment[] {
  const inked = runs.filter((r) => r.text.trim().length > 0).sort((a, b) => a.y - b.y || a.x - b.x);
  const clusters: Cluster[] = [];
  for (const run of inked) {
    // a superscript or a slightly raised run joins the line whose baseline it sits near
    const home = nearbyCluster(clusters, run);
    if (home) {
      home.runs.push(run);
      if (run.size > home.size) [home.size, home.y] = [run.size, run.y];
    } else clusters.push({ y: run.y, size: run.size, runs: [run] });
  }
  const out: Fragment[] = [];
  for (const c of clusters.sort((a, b) => a.y - b.y)) for (const f of clusterFragments(c)) out.push(f);
  return out;
}

/** Clusters are made in baseline order, so only the last few can be near; the scan stops well above the run. */
function nearbyCluster(clusters: Cluster[], run: Run): Cluster | undefined {
  for (let i = clusters.length - 1; i >= 0; i--) {
    const c = clusters[i] as Cluster;
    if (Math.abs(c.y - run.y) <= RAISED * Math.max(c.size, run.size)) return c;
    if (c.y < run.y - 3 * Math.max(c.size, run.size)) return undefined;
  }
  return undefined;
}

function clusterFragments(c: Cluster): Fragment[] {
  const runs = c.runs.sort((a, b) => a.x - b.x);
  const out: Fragment[] = [];
  let cur: Fragment | undefined;
  let last: Run | undefined;
  // a fragment's size is that of its longest run: a large caret or drop cap in it does not make it large
  let longest = 0;
  for (const r of runs) {
    // text drawn twice a hair apart is faked bold, not two words
    if (last && last.text === r.text && Math.abs(last.x - r.x) < 0.3 * r.size) continue;
    const size = Math.min(r.size, cur?.size ?? r.size);
    const gap = cur ? r.x - cur.right : Number.POSITIVE_INFINITY;
    const piece = r.text.replace(/\s+/g, " ").trim();
    if (cur && last && gap <= WORD_GAP * size && gap > -0.5 * size) {
      const spaced = gap > SPACE_GAP * size || /\s$/.test(last.text) || /^\s/.test(r.text);
      if (spaced) cur.text += " ";
      cur.joins = [...(cur.joins ?? []), [r.x, cur.text.length]];
      cur.text += piece;
      cur.right = Math.max(cur.right, r.x + r.w);
      if (piece.length > longest) [cur.size, longest] = [r.size, piece.length];
    } else {
      cur = { x: r.x, right: r.x + r.w, y: c.y, size: r.size, text: piece };
      longest = piece.length;
      out.push(cur);
    }
    last = r;
  }
  return out;
}

/** The fragment cut in two where one of its runs starts near `x` (within 0.4 of its size), if one does. */
export function splitFragment(f: Fragment, x: number): [Fragment, Fragment] | null {
  const join = f.joins?.find(([at]) => Math.abs(at - x) <= 0.4 * f.size);
  if (!join) return null;
  const [at, offset] = join;
  const head = { ...f, right: at, text: f.text.slice(0, offset).trim(), joins: f.joins?.filter(([a]) => a < at) };
  const tail = { ...f, x: at, text: f.text.slice(offset).trim(), joins: f.joins?.filter(([a]) => a > at) };
  return head.text && tail.text ? [head, tail] : null;
}
