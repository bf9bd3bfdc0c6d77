import type { PDFParse } from "pdf-parse";
import type { OcrOptions, PageNote } from "../types.ts";
import { ocrThreads, readPageImage } from "./pdf-ocr-engine.ts";
import { renderWidth, scanDpi } from "./pdf-ocr-resolution.ts";
import { loadPdfjs } from "./pdf-runtime.ts";

/** Below this mean word confidence (0..100) a page is kept but flagged. */
export const LOW_CONFIDENCE = 60;
/** A page whose thumbnail is this close to all white is blank, not scanned. */
const INK_RATIO = 0.002;

export interface OcrPage {
  page: number;
  text: string;
  confidence: number;
}

type PdfDoc = { getPage(n: number): Promise<Parameters<typeof scanDpi>[0] & { cleanup(): void }> };

/**
 * Reads image-only pages: each is rendered by pdf.js onto @napi-rs/canvas at its scan's resolution
 * (pdf-ocr-resolution.ts) and read by Tesseract (pdf-ocr-engine.ts), within `opts.maxPages` pages and
 * `opts.timeoutMs` for the document. Pages are rendered one after another on this thread while earlier ones are
 * being read on the engine's threads, so every core reads a page; a page or two is rendered ahead, no more (each
 * is megabytes). Blank pages are passed over silently; a page that yields no text, reads with low confidence,
 * or is not reached is reported in `notes`.
 */
export async function ocrPages(
  parser: PDFParse,
  pages: number[],
  opts: OcrOptions & { bytes?: Uint8Array },
  onPage?: (done: number) => void,
): Promise<{ read: OcrPage[]; notes: PageNote[] }> {
  const read: OcrPage[] = [];
  const notes: PageNote[] = [];
  const deadline = performance.now() + opts.timeoutMs;
  const ahead = ocrThreads() + 1;
  const reading = new Set<Promise<void>>();
  // pdf.js's own view of the document, for the scans' resolutions: opened at the first page that is not blank
  let task: { promise: Promise<unknown>; destroy(): Promise<void> } | null = null;
  let ops: Record<string, number> = {};
  const pageDoc = async (): Promise<PdfDoc | undefined> => {
    if (!opts.bytes) return undefined;
    if (!task) {
      const pdfjs = await loadPdfjs();
      ops = pdfjs.OPS;
      task = pdfjs.getDocument({ data: opts.bytes.slice(), isEvalSupported: false, verbosity: 0 });
    }
    return (await task.promise) as PdfDoc;
  };
  let started = 0;
  let finished = 0;
  onPage?.(0);
  try {
    for (const page of pages) {
      if (started >= opts.maxPages || performance.now() > deadline) {
        notes.push({ page, code: "ocr_skipped" });
        continue;
      }
      if (await isBlank(parser, page)) continue;
      started++;
      const doc = await pageDoc();
      const desiredWidth = doc ? await widthFor(doc, page, ops) : renderWidth(612, 792, null);
      const shot = await parser.getScreenshot({ partial: [page], desiredWidth, imageDataUrl: false, imageBuffer: true });
      const image = shot.pages[0]?.data;
      while (reading.size >= ahead) await Promise.race(reading);
      const job = (async () => {
        const result = image ? await readPageImage(Buffer.from(image)) : null;
        const text = result?.text ?? "";
        const confidence = result?.confidence ?? 0;
        if (!/[\p{L}\p{N}]{2,}/u.test(text)) notes.push({ page, code: "ocr_no_text" });
        else {
          read.push({ page, text, confidence });
          if (confidence < LOW_CONFIDENCE) notes.push({ page, code: "ocr_low_confidence", confidence });
        }
        onPage?.(++finished);
      })();
      reading.add(job);
      void job.finally(() => reading.delete(job)).catch(() => {});
    }
    await Promise.all(reading);
  } finally {
    await (task as { destroy(): Promise<void> } | null)?.destroy().catch(() => {});
  }
  // pages finish in any order; they are reported in page order
  read.sort((a, b) => a.page - b.page);
  notes.sort((a, b) => a.page - b.page);
  return { read, notes };
}

/** The width to render `page` at: its scan's resolution, within bounds. */
async function widthFor(doc: PdfDoc, num: number, ops: Record<string, number>): Promise<number> {
  const page = await doc.getPage(num);
  try {
    const { width, height } = page.getViewport({ scale: 1 });
    return renderWidth(width, height, await scanDpi(page, ops).catch(() => null));
  } finally {
    page.cleanup();
  }
}

/** A 200-pixel-wide render with almost no dark pixels: an empty page, nothing to read. */
async function isBlank(parser: PDFParse, page: number): Promise<boolean> {
  const { createCanvas, loadImage } = await import("@napi-rs/canvas");
  const shot = await parser.getScreenshot({ partial: [page], desiredWidth: 200, imageDataUrl: false, imageBuffer: true });
  const data = shot.pages[0]?.data;
  if (!data) return true;
  const img = await loadImage(Buffer.from(data));
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  const px = ctx.getImageData(0, 0, img.width, img.height).data;
  let ink = 0;
  // anything visibly darker than paper: thin type shrinks to light grey at this size
  for (let i = 0; i < px.length; i += 4) if ((px[i] ?? 255) + (px[i + 1] ?? 255) + (px[i + 2] ?? 255) < 690) ink++;
  return ink / (px.length / 4) < INK_RATIO;
}
