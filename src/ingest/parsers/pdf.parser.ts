import { type AppError, appError, isAppError } from "../../errors/index.ts";
import { hasPdfHeader } from "../detect.ts";
import type { DocumentMeta, ParsedDocument, ParseOptions, Parser } from "../types.ts";
import { type LaidOutPage, pdfBlocks } from "./pdf-blocks.ts";
import { toFragments } from "./pdf-fragments.ts";
import { type PageFragments, stripFurniture } from "./pdf-furniture.ts";
import { type RawItem, toPageRuns } from "./pdf-items.ts";
import { layoutFlows } from "./pdf-layout.ts";
import { stripLineNumbers } from "./pdf-line-numbers.ts";
import { infoFields, printedDate, runningFields, withPrintedTitle } from "./pdf-meta.ts";
import { ocrPages } from "./pdf-ocr.ts";
import { loadPdfjs } from "./pdf-runtime.ts";

interface ExtractedPage extends PageFragments {
  aside: string[];
}

export const pdfParser: Parser = {
  kind: "pdf",
  async parse(bytes, opts) {
    if (!hasPdfHeader(bytes)) throw appError("document_unreadable");
    const { pages, info } = await extractPages(bytes, opts);
    const ocr = opts.ocr?.enabled ? await readImagePages(bytes, pages, opts) : null;
    const running = stripFurniture(pages);
    const laidOut: LaidOutPage[] = pages.map((p) => ({
      num: p.num,
      width: p.width,
      flows: layoutFlows(p.frags, p.width),
      aside: p.aside,
    }));
    const { blocks, title, firstLines } = pdfBlocks(laidOut, new Map(ocr?.read.map((r) => [r.page, r.text]) ?? []));
    if (blocks.length === 0)
      throw appError(ocr?.notes.some((n) => n.code === "ocr_unavailable") ? "ocr_unavailable" : "no_extractable_text");
    const doc: ParsedDocument = { kind: "pdf", blocks, pages: pages.length };
    // the printed dateline says when the document was written: after the title, before the file's creation date
    const recorded = withPrintedTitle(info, title);
    const afterTitle = recorded[0]?.label === "Title" ? 1 : 0;
    const fields = [...recorded.slice(0, afterTitle), ...printedDate(firstLines), ...recorded.slice(afterTitle), ...runningFields(running)];
    if (fields.length > 0) doc.meta = { fields };
    if (ocr && ocr.read.length > 0)
      doc.ocr = { pages: ocr.read.length, confidence: ocr.read.reduce((n, p) => n + p.confidence, 0) / ocr.read.length };
    if (ocr && ocr.notes.length > 0) doc.notes = ocr.notes;
    return doc;
  },
};

const PROGRESS_PAGES = 25;

/** A page with fewer letters than this has no usable text layer: a scan, or text drawn as curves. */
const MIN_LETTERS = 20;

const letters = (p: PageFragments) => p.frags.reduce((n, f) => n + (f.text.match(/\p{L}/gu)?.length ?? 0), 0);

/** OCR for the pages without a text layer; their text stands in for the (empty) extracted one. */
async function readImagePages(bytes: Uint8Array, pages: ExtractedPage[], opts: ParseOptions) {
  const candidates = pages.filter((p) => letters(p) < MIN_LETTERS).map((p) => p.num);
  if (candidates.length === 0 || !opts.ocr) return null;
  try {
    const result = await ocrPages(bytes, candidates, opts.ocr, (done) => opts.onProgress?.(done, candidates.length, "ocr"));
    const read = new Set(result.read.map((r) => r.page));
    // the few stray characters of a read page would otherwise come before its OCR text
    for (const p of pages) if (read.has(p.num)) p.frags = [];
    return result;
  } catch (error) {
    // no renderer or no OCR engine here (the compiled binary): the pages are reported, the rest still counts
    console.error(`OCR unavailable: ${String((error as Error)?.message ?? error)}`);
    return { read: [], notes: candidates.map((page) => ({ page, code: "ocr_unavailable" as const })) };
  }
}

/**
 * Every page's text items with their positions, read page by page (a long PDF reports progress as it goes),
 * turned into fragments at once so that only those are kept. A PDF over the page cap is refused before any
 * page is read.
 */
async function extractPages(bytes: Uint8Array, opts: ParseOptions): Promise<{ pages: ExtractedPage[]; info: DocumentMeta["fields"] }> {
  const pdfjs = await loadPdfjs();
  // pdf.js may transfer or detach the buffer it is given; never hand it the caller's bytes.
  const task = pdfjs.getDocument({ data: bytes.slice(), isEvalSupported: false, stopAtErrors: false, verbosity: 0 });
  try {
    const doc = await task.promise;
    if (doc.numPages > opts.maxPages) throw appError("payload_too_large", { param: "file" });
    const pages: ExtractedPage[] = [];
    for (let num = 1; num <= doc.numPages; num++) {
      const page = await doc.getPage(num);
      const viewport = page.getViewport({ scale: 1 });
      const content = await page.getTextContent();
      const items = content.items.filter((it): it is RawItem & typeof it => "str" in it);
      const runs = toPageRuns(items, viewport);
      pages.push({ num, width: runs.width, height: runs.height, frags: stripLineNumbers(toFragments(runs.runs)), aside: runs.aside });
      page.cleanup();
      if (num === 1 || num % PROGRESS_PAGES === 0 || num === doc.numPages) opts.onProgress?.(num, doc.numPages);
    }
    const info = infoFields((await doc.getMetadata().catch(() => null))?.info);
    return { pages, info };
  } catch (error) {
    throw toAppError(error);
  } finally {
    await task.destroy().catch(() => {});
  }
}

function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (error instanceof Error && error.name === "PasswordException") return appError("document_encrypted", { cause: error });
  return appError("document_unreadable", { cause: error });
}
