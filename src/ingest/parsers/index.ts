import type { DocumentKind, Parser } from "../types.ts";
import { csvParser } from "./csv.parser.ts";
import { docxParser } from "./docx.parser.ts";
import { pdfParser } from "./pdf.parser.ts";
import { txtParser } from "./txt.parser.ts";

export const parsers: Record<DocumentKind, Parser> = {
  pdf: pdfParser,
  docx: docxParser,
  csv: csvParser,
  txt: txtParser,
};

export { csvParser, docxParser, pdfParser, txtParser };
