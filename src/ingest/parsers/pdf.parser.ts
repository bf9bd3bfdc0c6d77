import { type AppError, appError, isAppError } from "../../errors/index.ts";
import { hasPdfHeader } from "../detect.ts";
import type { Block, ParsedDocument, ParseOptions, Parser } from "../types.ts";
import { ocrPages } from "./pdf-ocr.ts";
import { pageTextToParagraphs } from "./pdf-paragraphs.ts";
import { loadPdfParse } from "./pdf-runtime.ts";
import { documentVocabulary, normalisePdfCharacters } from "./pdf-text.ts";

interface PageText {
  num: number;
  text: string;
}

export const pdfParser: Parser = {
  kind: "pdf",
  async parse(bytes, opts) {
    if (!hasPdfHeader(bytes)) throw appError("document_unreadable");
    const pages = await extractPages(bytes, opts);
    const ocr = opts.ocr?.enabled ? await readImagePages(bytes, pages, opts) : null;
    // how the document spells a word elsewhere decides how a word broken by a hyphen is mended
    const vocab = documentVocabulary(pages.map((p) => normalisePdfCharacters(p.text)));
    const blocks: Block[] = pages.flatMap((p) =>
      pageTextToParagraphs(p.text, vocab).map((text): Block => ({ type: "paragraph", text, page: p.num })),
    );
    if (blocks.length === 0)
      throw appError(ocr?.notes.some((n) => n.code === "ocr_unavailable") ? "ocr_unavailable" : "no_extractable_text");
    const doc: ParsedDocument = { kind: "pdf", blocks, pages: pages.length };
    if (ocr && ocr.read.length > 0)
      doc.ocr = { pages: ocr.read.length, confidence: ocr.read.reduce((n, p) => n + p.confidence, 0) / ocr.read.length };
    if (ocr && ocr.notes.length > 0) doc.notes = ocr.notes;
    return doc;
  },
};

const PROGRESS_PAGES = 25;

/** A page with fewer letters than this has no usable text layer: a scan, or text drawn as curves. */
const MIN_LETTERS = 20;

/** OCR for the pages without a text layer; their text replaces the (empty) extracted one. */
async function readImagePages(bytes: Uint8Array, pages: PageText[], opts: ParseOptions) {
  const candidates = pages.filter((p) => (p.text.match(/\p{L}/gu)?.length ?? 0) < MIN_LETTERS).map((p) => p.num);
  if (candidates.length === 0 || !opts.ocr) return null;
  const PDFParse = await loadPdfParse();
  const parser = new PDFParse({ data: bytes.slice(), isEvalSupported: false, stopAtErrors: false });
  try {
    const result = await ocrPages(parser, candidates, opts.ocr, (done) => opts.onProgress?.(done, candidates.length, "ocr"));
    const byPage = new Map(result.read.map((r) => [r.page, r.text]));
    for (const p of pages) p.text = byPage.get(p.num) ?? p.text;
    return result;
  } catch (error) {
    // no renderer or no OCR engine here (the compiled binary): the pages are reported, the rest still counts
    console.error(`OCR unavailable: ${String((error as Error)?.message ?? error)}`);
    return { read: [], notes: candidates.map((page) => ({ page, code: "ocr_unavailable" as const })) };
  } finally {
    await parser.destroy().catch(() => {});
  }
}

async function extractPages(bytes: Uint8Array, opts: ParseOptions): Promise<PageText[]> {
  const PDFParse = await loadPdfParse();
  // pdf.js may transfer or detach the buffer it is given; never hand it the caller's bytes.
  const parser = new PDFParse({ data: bytes.slice(), isEvalSupported: false, stopAtErrors: false });
  try {
    // The first page also tells the page count, so an oversized file is refused before the rest is read.
    const head = await parser.getText({ first: 1 });
    if (head.total > opts.maxPages) throw appError("payload_too_large", { param: "file" });
    const pages = [...head.pages];
    opts.onProgress?.(1, head.total);
    // in ranges, so a long PDF reports its progress page by page range
    for (let first = 2; first <= head.total; first += PROGRESS_PAGES) {
      const last = Math.min(head.total, first + PROGRESS_PAGES - 1);
      for (const p of (await parser.getText({ first, last })).pages) pages.push(p);
      opts.onProgress?.(last, head.total);
    }
    return pages;
  } catch (error) {
    throw toAppError(error);
  } finally {
    await parser.destroy().catch(() => {});
  }
}

function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (error instanceof Error && error.name === "PasswordException") return appError("document_encrypted", { cause: error });
  return appError("document_unreadable", { cause: error });
}
