import { createRequire } from "node:module";
import type { PDFParse } from "pdf-parse";
import type { OcrOptions, PageNote } from "../types.ts";

/** Below this mean word confidence (0..100) a page is kept but flagged. */
export const LOW_CONFIDENCE = 60;
/** Rendered width for OCR: about 240 dpi for a letter-size page. */
const OCR_WIDTH = 2000;
/** A page whose thumbnail is this close to all white is blank, not scanned. */
const INK_RATIO = 0.002;

export interface OcrPage {
  page: number;
  text: string;
  confidence: number;
}

type Recognizer = { recognize(image: Buffer): Promise<{ data: { text: string; confidence: number } }> };
let recognizer: Promise<Recognizer> | undefined;

/**
 * Tesseract (tesseract.js, WebAssembly) with the English model shipped in @tesseract.js-data/eng: read from
 * node_modules, never fetched, never cached elsewhere. One per parse process, reused across documents.
 */
function getRecognizer(): Promise<Recognizer> {
  recognizer ??= (async () => {
    const require = createRequire(import.meta.url);
    const eng = require("@tesseract.js-data/eng") as { langPath: string };
    const Tesseract = await import("tesseract.js");
    return (await Tesseract.createWorker("eng", 1, {
      langPath: eng.langPath,
      gzip: true,
      cacheMethod: "none",
      logger: () => {},
    })) as unknown as Recognizer;
  })();
  recognizer.catch(() => {
    recognizer = undefined;
  });
  return recognizer;
}

/**
 * Reads image-only pages: each is rendered by pdf.js onto @napi-rs/canvas and read by Tesseract, within
 * `opts.maxPages` pages and `opts.timeoutMs` for the document. Blank pages are passed over silently; a page
 * that yields no text, reads with low confidence, or is not reached is reported in `notes`.
 */
export async function ocrPages(
  parser: PDFParse,
  pages: number[],
  opts: OcrOptions,
  onPage?: (done: number) => void,
): Promise<{ read: OcrPage[]; notes: PageNote[] }> {
  const read: OcrPage[] = [];
  const notes: PageNote[] = [];
  const deadline = performance.now() + opts.timeoutMs;
  let done = 0;
  onPage?.(0);
  for (const page of pages) {
    if (done >= opts.maxPages || performance.now() > deadline) {
      notes.push({ page, code: "ocr_skipped" });
      continue;
    }
    if (await isBlank(parser, page)) continue;
    done++;
    const shot = await parser.getScreenshot({ partial: [page], desiredWidth: OCR_WIDTH, imageDataUrl: false, imageBuffer: true });
    const image = shot.pages[0]?.data;
    const result = image ? await (await getRecognizer()).recognize(Buffer.from(image)) : null;
    const text = result?.data.text.trim() ?? "";
    const confidence = result?.data.confidence ?? 0;
    if (!/[\p{L}\p{N}]{2,}/u.test(text)) notes.push({ page, code: "ocr_no_text" });
    else {
      read.push({ page, text, confidence });
      if (confidence < LOW_CONFIDENCE) notes.push({ page, code: "ocr_low_confidence", confidence });
    }
    onPage?.(done);
  }
  return { read, notes };
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
