import type { OcrOptions, PageNote } from "../types.ts";
import { ocrThreads, readPageImage } from "./pdf-ocr-engine.ts";
import { renderWidth, scanDpi } from "./pdf-ocr-resolution.ts";
import { loadPdfjs } from "./pdf-runtime.ts";

/** Below this mean word confidence (0..100) a page is kept but flagged. */
export const LOW_CONFIDENCE = 60;
/** A page whose thumbnail is this close to all white is blank, not scanned. */
const INK_RATIO = 0.002;
/** Width of the thumbnail a page is looked at for ink, in pixels. */
const THUMB_WIDTH = 200;

export interface OcrPage {
  page: number;
  text: string;
  confidence: number;
}

interface Pixels {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

type PdfPage = Parameters<typeof scanDpi>[0] & {
  getViewport(o: { scale: number }): { width: number; height: number };
  render(o: { canvasContext: unknown; canvas: unknown; viewport: unknown }): { promise: Promise<void> };
  cleanup(): void;
};
type PdfDoc = { getPage(n: number): Promise<PdfPage>; destroy(): Promise<void> };

/**
 * Reads image-only pages: each is drawn by pdf.js onto @napi-rs/canvas at its scan's resolution
 * (pdf-ocr-resolution.ts) and read by Tesseract (pdf-ocr-engine.ts), within `opts.maxPages` pages and
 * `opts.timeoutMs` for the document. Pages are drawn one after another on this thread while earlier ones are
 * being read on the engine's threads, so every core reads a page; a page or two is drawn ahead, no more (each
 * is megabytes). Blank pages are passed over silently; a page that yields no text, reads with low confidence,
 * or is not reached is reported in `notes`.
 */
export async function ocrPages(
  bytes: Uint8Array,
  pages: number[],
  opts: OcrOptions,
  onPage?: (done: number) => void,
): Promise<{ read: OcrPage[]; notes: PageNote[] }> {
  const read: OcrPage[] = [];
  const notes: PageNote[] = [];
  const deadline = performance.now() + opts.timeoutMs;
  const ahead = ocrThreads() + 1;
  const reading = new Set<Promise<void>>();
  const pdfjs = await loadPdfjs();
  const task = pdfjs.getDocument({ data: bytes.slice(), isEvalSupported: false, verbosity: 0 });
  let started = 0;
  let finished = 0;
  onPage?.(0);
  try {
    const doc = (await task.promise) as unknown as PdfDoc;
    for (const num of pages) {
      if (started >= opts.maxPages || performance.now() > deadline) {
        notes.push({ page: num, code: "ocr_skipped" });
        continue;
      }
      const image = await pageImage(doc, num, pdfjs.OPS);
      if (!image) continue;
      started++;
      while (reading.size >= ahead) await Promise.race(reading);
      const job = (async () => {
        const { text, confidence } = await readPageImage(image.pnm, opts.tessdata, image.dpi);
        if (!/[\p{L}\p{N}]{2,}/u.test(text)) notes.push({ page: num, code: "ocr_no_text" });
        else {
          read.push({ page: num, text, confidence });
          if (confidence < LOW_CONFIDENCE) notes.push({ page: num, code: "ocr_low_confidence", confidence });
        }
        onPage?.(++finished);
      })();
      reading.add(job);
      void job.finally(() => reading.delete(job)).catch(() => {});
    }
    await Promise.all(reading);
  } finally {
    await task.destroy().catch(() => {});
  }
  // pages finish in any order; they are reported in page order
  read.sort((a, b) => a.page - b.page);
  notes.sort((a, b) => a.page - b.page);
  return { read, notes };
}

/**
 * Page `num` as the image Tesseract reads (PGM or PPM at its scan's resolution) and that resolution, or null for a
 * blank page. The thumbnail, the scan's resolution and the full drawing come from one pdf.js page, so its image is
 * decoded once.
 */
async function pageImage(doc: PdfDoc, num: number, ops: Record<string, number>): Promise<{ pnm: Buffer; dpi: number } | null> {
  const page = await doc.getPage(num);
  try {
    if (isBlank(await draw(page, THUMB_WIDTH))) return null;
    const { width, height } = page.getViewport({ scale: 1 });
    const px = renderWidth(width, height, await scanDpi(page, ops).catch(() => null));
    return { pnm: toPnm(await draw(page, px)), dpi: px / (width / 72) };
  } finally {
    page.cleanup();
  }
}

/** The page drawn by pdf.js `width` pixels wide on white, as RGBA pixels. */
async function draw(page: PdfPage, width: number): Promise<Pixels> {
  const { createCanvas } = await import("@napi-rs/canvas");
  const viewport = page.getViewport({ scale: width / page.getViewport({ scale: 1 }).width });
  const canvas = createCanvas(Math.max(1, Math.round(viewport.width)), Math.max(1, Math.round(viewport.height)));
  const canvasContext = canvas.getContext("2d");
  await page.render({ canvasContext, canvas, viewport }).promise;
  return canvasContext.getImageData(0, 0, canvas.width, canvas.height);
}

/**
 * RGBA pixels as a PGM (grey, 8 bits) when every pixel is grey, else as a PPM (RGB, 8 bits each): Tesseract
 * reads either without the PNG a canvas would encode and Leptonica decode again, and a grey image, a third of the
 * bytes, takes it less time (about a tenth) than the same page in colour. A colour page stays in colour:
 * Tesseract thresholds each channel, and an illustrated colour scan turned grey first read stray letters out of
 * its picture.
 */
function toPnm({ data, width, height }: Pixels): Buffer {
  let grey = true;
  for (let i = 0; i < data.length && grey; i += 4) grey = data[i] === data[i + 1] && data[i] === data[i + 2];
  const channels = grey ? 1 : 3;
  const head = Buffer.from(`${grey ? "P5" : "P6"}\n${width} ${height}\n255\n`);
  const out = Buffer.allocUnsafe(head.length + width * height * channels);
  head.copy(out);
  for (let i = 0, o = head.length; i < data.length; i += 4) for (let c = 0; c < channels; c++) out[o++] = data[i + c] ?? 255;
  return out;
}

/** Almost no dark pixels on the thumbnail: an empty page, nothing to read. */
function isBlank({ data }: Pixels): boolean {
  let ink = 0;
  // anything visibly darker than paper: thin type shrinks to light grey at this size
  for (let i = 0; i < data.length; i += 4) if ((data[i] ?? 255) + (data[i + 1] ?? 255) + (data[i + 2] ?? 255) < 690) ink++;
  return ink / (data.length / 4) < INK_RATIO;
}
