/**
 * The resolution a scanned page is rendered at for OCR: a little above the scan's own (read from the page's
 * largest image and the size it is drawn at), within [MIN_DPI, MAX_DPI]. Far above it adds pixels (Tesseract's
 * time grows with them) but no detail; below 150 dpi small type loses its shapes; a 2,400-dpi scan is read at
 * 300. The rule keeps clear of the scan's own resolution because pdf.js's 1:1 render of a 200-dpi scan read 41 %
 * of its characters right, at 1.06× or 1.2× 99.9 %; that was not the ratio, though: the same two pages read
 * 36-45 % at 0.9× too, and 99.6-99.9 % at any size from 150 to 220 dpi once told the resolution (a PNG
 * that states it, or user_defined_dpi, as readPageImage now does). They are justified, repeating text whose word
 * gaps line up down the page; guessing the resolution from the type, Tesseract's layout found columns in those
 * gaps. A page without a large image (text drawn as curves) is rendered at DEFAULT_DPI.
 */
export const MIN_DPI = 150;
export const MAX_DPI = 300;
export const DEFAULT_DPI = 220;
/** Above the scan's resolution by this much (see above). */
const OVER_SCAN = 1.1;
/** Rendered pixels at most (an oversized page is read at less than MIN_DPI rather than exhaust memory). */
const MAX_PIXELS = 24e6;

type Matrix = [number, number, number, number, number, number];

interface PageLike {
  getViewport(o: { scale: number }): { width: number; height: number };
  getOperatorList(): Promise<{ fnArray: number[]; argsArray: unknown[][] }>;
}

const times = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[2] * n[1],
  m[1] * n[0] + m[3] * n[1],
  m[0] * n[2] + m[2] * n[3],
  m[1] * n[2] + m[3] * n[3],
  m[0] * n[4] + m[2] * n[5] + m[4],
  m[1] * n[4] + m[3] * n[5] + m[5],
];

/** Pixels per inch of the page's largest image (covering a quarter of the page or more), or null. */
export async function scanDpi(page: PageLike, ops: Record<string, number>): Promise<number | null> {
  const { width, height } = page.getViewport({ scale: 1 });
  const list = await page.getOperatorList();
  const images = new Set([ops.paintImageXObject, ops.paintInlineImageXObject, ops.paintImageMaskXObject]);
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  const stack: Matrix[] = [];
  let best: { area: number; dpi: number } | null = null;
  for (const [i, fn] of list.fnArray.entries()) {
    const args = list.argsArray[i] ?? [];
    if (fn === ops.save) stack.push(ctm);
    else if (fn === ops.restore) ctm = stack.pop() ?? ctm;
    else if (fn === ops.transform) ctm = times(ctm, args as Matrix);
    else if (images.has(fn)) {
      // an XObject's size comes as arguments, an inline image's (and a mask's) on its data
      const data = args[0] as { width?: number; height?: number } | string;
      const px = typeof data === "object" && data?.width ? data.width : Number(args[1]);
      const drawn = Math.hypot(ctm[0], ctm[1]);
      const area = drawn * Math.hypot(ctm[2], ctm[3]);
      if (!px || !drawn || area < (width * height) / 4) continue;
      const dpi = px / (drawn / 72);
      if (!best || area > best.area) best = { area, dpi };
    }
  }
  return best?.dpi ?? null;
}

/** Rendered width in pixels for a page of `widthPt` × `heightPt` points scanned at `dpi` (null: unknown). */
export function renderWidth(widthPt: number, heightPt: number, dpi: number | null): number {
  let chosen = dpi ? Math.min(MAX_DPI, Math.max(MIN_DPI, dpi * OVER_SCAN)) : DEFAULT_DPI;
  // capped back to the scan's own resolution: a little below it instead
  if (dpi && Math.abs(chosen / dpi - 1) < 0.05) chosen = dpi * 0.9;
  const pixels = (widthPt / 72) * chosen * (heightPt / 72) * chosen;
  if (pixels > MAX_PIXELS) chosen *= Math.sqrt(MAX_PIXELS / pixels);
  return Math.max(1, Math.round((widthPt / 72) * chosen));
}
