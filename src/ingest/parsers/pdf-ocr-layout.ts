/**
 * Reading order of an OCR'd page from the geometry of Tesseract's blocks (recursive XY-cut): the page is cut at
 * the widest vertical gap no block crosses (a gutter: left part first), else at the widest horizontal gap (top
 * part first), then each part the same way. Columns are tried first because paragraph breaks in side-by-side
 * columns often line up across the page, and cutting there first would read the columns in strips. A
 * three-column page under a full-width header reads header, column 1, 2, 3 (the header crosses every gutter, so
 * the first cut is below it); a block spanning the columns (a table, a caption) stays between what is above and
 * below it.
 */

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Smallest gap that separates: a few pixels between two blocks are not a gutter. */
const MIN_GAP_PX = 8;

/** The middle and size of the largest gap along one axis that no box crosses, or null. */
function widestGap<T extends { bbox: Box }>(items: T[], axis: "x" | "y"): { at: number; size: number } | null {
  const spans = items.map((i) => (axis === "y" ? [i.bbox.y0, i.bbox.y1] : [i.bbox.x0, i.bbox.x1]) as [number, number]);
  spans.sort((a, b) => a[0] - b[0]);
  let best: { at: number; size: number } | null = null;
  let reach = spans[0]?.[1] ?? 0;
  for (const [start, end] of spans.slice(1)) {
    const gap = start - reach;
    if (gap >= MIN_GAP_PX && (!best || gap > best.size)) best = { at: reach + gap / 2, size: gap };
    reach = Math.max(reach, end);
  }
  return best;
}

/** The items in reading order. */
export function readingOrder<T extends { bbox: Box }>(items: T[]): T[] {
  if (items.length <= 1) return items;
  const column = widestGap(items, "x");
  if (column) {
    const left = items.filter((i) => i.bbox.x1 <= column.at);
    return [...readingOrder(left), ...readingOrder(items.filter((i) => i.bbox.x1 > column.at))];
  }
  const row = widestGap(items, "y");
  if (row) {
    const above = items.filter((i) => i.bbox.y1 <= row.at);
    return [...readingOrder(above), ...readingOrder(items.filter((i) => i.bbox.y1 > row.at))];
  }
  return [...items].sort((a, b) => a.bbox.y0 - b.bbox.y0 || a.bbox.x0 - b.bbox.x0);
}
