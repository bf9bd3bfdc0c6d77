import type { Fragment } from "./pdf-fragments.ts";

/**
 * A page cut into sections: runs of bands (a line, or interleaved lines of columns with offset baselines) that
 * keep at least one column gutter in common. Whether a section's gutters separate columns of prose is for the
 * layout to decide.
 */

/** A column gutter is at least this wide, in font sizes. */
export const MIN_GUTTER = 0.4;
/** White space this tall (in font sizes) across the whole page ends a run of columns. */
const SECTION_GAP = 2;

export type Span = [number, number];

export interface Band {
  /** the band's own fragments (none for bands merged into a section's outline) */
  frags: Fragment[];
  /** median font size, for gutter widths */
  size: number;
  /** x ranges no fragment covers, between the band's leftmost and rightmost ink */
  free: Span[];
  left: number;
  right: number;
}

/** Fragments grouped by vertical overlap: one line, or the interleaved lines of columns with offset baselines. */
export function bands(frags: Fragment[]): Fragment[][] {
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
export function sections(groups: Fragment[][]): Band[][] {
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
export function merge(bands: Band[]): Band {
  let merged = bands[0] as Band;
  for (const b of bands.slice(1))
    merged = join(merged, b) ?? {
      ...merged,
      frags: [],
      free: [],
      left: Math.min(merged.left, b.left),
      right: Math.max(merged.right, b.right),
    };
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

export function medianSize(frags: Fragment[]): number {
  const sizes = frags.map((f) => f.size).sort((a, b) => a - b);
  return sizes[Math.floor(sizes.length / 2)] ?? 10;
}
