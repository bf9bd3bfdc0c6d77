import { type AppError, appError, isAppError } from "../../errors/index.ts";
import { hasPdfHeader } from "../detect.ts";
import type { Block, ParsedDocument, ParseOptions, Parser } from "../types.ts";
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
    // how the document spells a word elsewhere decides how a word broken by a hyphen is mended
    const vocab = documentVocabulary(pages.map((p) => normalisePdfCharacters(p.text)));
    const blocks: Block[] = pages.flatMap((p) =>
      pageTextToParagraphs(p.text, vocab).map((text): Block => ({ type: "paragraph", text, page: p.num })),
    );
    if (blocks.length === 0) throw appError("no_extractable_text");
    return { kind: "pdf", blocks, pages: pages.length } satisfies ParsedDocument;
  },
};

async function extractPages(bytes: Uint8Array, opts: ParseOptions): Promise<PageText[]> {
  const PDFParse = await loadPdfParse();
  // pdf.js may transfer or detach the buffer it is given; never hand it the caller's bytes.
  const parser = new PDFParse({ data: bytes.slice(), isEvalSupported: false, stopAtErrors: false });
  try {
    // The first page also tells the page count, so an oversized file is refused before the rest is read.
    const head = await parser.getText({ first: 1 });
    if (head.total > opts.maxPages) throw appError("payload_too_large", { param: "file" });
    const rest = head.total > 1 ? (await parser.getText({ first: 2, last: head.total })).pages : [];
    return [...head.pages, ...rest];
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
