import { expect, test } from "bun:test";
import { DEFAULT_DPI, MAX_DPI, MIN_DPI, renderWidth, scanDpi } from "../../src/ingest/parsers/pdf-ocr-resolution.ts";

const OPS = { save: 10, restore: 11, transform: 12, paintImageXObject: 85, paintInlineImageXObject: 86, paintImageMaskXObject: 83 };
type Op = [number, unknown[]];

/** A US Letter page (612 × 792 pt) whose operator list is `ops`. */
const page = (ops: Op[]) => ({
  getViewport: ({ scale }: { scale: number }) => ({ width: 612 * scale, height: 792 * scale }),
  getOperatorList: async () => ({ fnArray: ops.map(([fn]) => fn), argsArray: ops.map(([, args]) => args) }),
});
/** An image XObject `px` pixels wide drawn `pt` points wide at the page's corner, inside save/restore. */
const image = (px: number, pt: number, ptHigh = pt * (792 / 612)): Op[] => [
  [OPS.save, []],
  [OPS.transform, [pt, 0, 0, ptHigh, 0, 0]],
  [OPS.paintImageXObject, ["img_p0_1", px, Math.round(px * (ptHigh / pt))]],
  [OPS.restore, []],
];

test("a page's scan resolution is its page-sized image's pixels over the inches it is drawn across", async () => {
  expect(await scanDpi(page(image(1700, 612)), OPS)).toBeCloseTo(200, 5);
  // the same pixels over less than a quarter of the page: a picture, not the page's scan
  expect(await scanDpi(page(image(1700, 300)), OPS)).toBeNull();
});

test("a small picture on a scanned page (a logo) does not decide its resolution; the largest image does", async () => {
  const logo: Op[] = [
    [OPS.save, []],
    [OPS.transform, [72, 0, 0, 72, 36, 36]],
    [OPS.paintImageXObject, ["img_p0_2", 600, 600]],
    [OPS.restore, []],
  ];
  expect(await scanDpi(page([...logo, ...image(2550, 612)]), OPS)).toBeCloseTo(300, 5);
  expect(await scanDpi(page(logo), OPS)).toBeNull();
});

test("a page is rendered a little above its scan's resolution, within the bounds, each page at its own", () => {
  const dpiOf = (width: number) => (width / 612) * 72;
  expect(dpiOf(renderWidth(612, 792, 200))).toBeCloseTo(220, 0);
  // a coarse fax-like scan is brought up to the smallest size Tesseract reads well; a very fine one down to the cap
  expect(dpiOf(renderWidth(612, 792, 96))).toBeCloseTo(MIN_DPI, 0);
  expect(dpiOf(renderWidth(612, 792, 2400))).toBeCloseTo(MAX_DPI, 0);
  // text drawn as curves, no image: the default
  expect(dpiOf(renderWidth(612, 792, null))).toBeCloseTo(DEFAULT_DPI, 0);
});

test("an oversized page is rendered below the usual resolution rather than as an image too large to hold", () => {
  // a 44 × 34 inch drawing scanned at 200 dpi: 220 dpi would be 72 million pixels
  const width = renderWidth(44 * 72, 34 * 72, 200);
  const height = (width / 44) * 34;
  expect(width * height).toBeLessThanOrEqual(24e6 * 1.001);
  expect(width).toBeLessThan(44 * MIN_DPI);
});
