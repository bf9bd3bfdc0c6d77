import { appError } from "../errors/index.ts";
import { indexOfBytes, isCfb, isEncryptedOoxml, startsWithBytes } from "./byte-search.ts";
import { sniffDelimiter } from "./csv-sniff.ts";
import { decodeText, looksBinary } from "./text-decode.ts";
import type { DocumentKind } from "./types.ts";
import { isZipMagic, listZipEntries, scanLocalNames } from "./zip-reader.ts";

const DOCX_MAIN_PART = "word/document.xml";
const PDF_HEADER = new TextEncoder().encode("%PDF-");

/** Formats that are clearly not documents we read, refused before any text heuristics run. */
const BINARY_SIGNATURES: number[][] = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0x4d, 0x5a], // Windows PE
  [0xcf, 0xfa, 0xed, 0xfe], // Mach-O
  [0x1f, 0x8b], // gzip
  [0x42, 0x5a, 0x68], // bzip2
  [0x37, 0x7a, 0xbc, 0xaf], // 7z
  [0x52, 0x61, 0x72, 0x21], // RAR
  [0x52, 0x49, 0x46, 0x46], // RIFF (webp, wav, avi)
  [0x00, 0x61, 0x73, 0x6d], // wasm
];

/**
 * Decides the kind from the bytes alone. `filename` only breaks the tie between TXT and CSV for text
 * that could be either; it never turns binary content into a document.
 */
export function detectKind(bytes: Uint8Array, filename?: string): DocumentKind {
  if (hasPdfHeader(bytes)) return "pdf";
  if (isZipMagic(bytes)) return detectZip(bytes);
  // An encrypted DOCX is a CFB container; calling it DOCX lets the parser answer "encrypted".
  if (isEncryptedOoxml(bytes)) return "docx";
  if (isCfb(bytes) || BINARY_SIGNATURES.some((sig) => startsWithBytes(bytes, sig)) || looksBinary(bytes)) {
    throw appError("unsupported_document");
  }
  refuseMislabeledText(bytes, filename);
  return looksLikeCsv(bytes, filename) ? "csv" : "txt";
}

const HTML_START = /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html[\s>]|head[\s>]|body[\s>])/i;

/**
 * Text whose name says PDF or DOCX, and HTML pages, would be read as plain text (a web page's markup quoted in
 * answers): refused with a message that says what the file really is and what to upload instead.
 */
function refuseMislabeledText(bytes: Uint8Array, filename?: string): void {
  const ext = filename?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  const head = decodeText(bytes.subarray(0, 4096)).text.replace(/^\ufeff/, "");
  if (!/\S/.test(head)) return; // empty: "no text" says it better
  if (HTML_START.test(head) || ((ext === "html" || ext === "htm") && /<(html|body|head|div|p)[\s>]/i.test(head)))
    throw appError("unsupported_document", {
      message: "HTML pages are not supported. Save the page as PDF, or copy its text into a .txt file, and upload that.",
    });
  if (ext === "pdf" || ext === "docx")
    throw appError("unsupported_document", {
      message: `The file is named .${ext} but holds plain text, not a ${ext.toUpperCase()} document. Rename it .txt (or upload the real ${ext.toUpperCase()}).`,
    });
}

/** pdf.js accepts a "%PDF-" header anywhere in the first kilobyte, after leading junk. */
export function hasPdfHeader(bytes: Uint8Array): boolean {
  return indexOfBytes(bytes.subarray(0, 1024), PDF_HEADER) !== -1;
}

function detectZip(bytes: Uint8Array): DocumentKind {
  let names: string[];
  try {
    names = listZipEntries(bytes).map((e) => e.name);
  } catch {
    // Truncated: the central directory is gone but the local headers still name the parts.
    names = scanLocalNames(bytes);
  }
  if (names.includes(DOCX_MAIN_PART) || names.some((n) => n.startsWith("word/"))) return "docx";
  throw appError("unsupported_document");
}

function looksLikeCsv(bytes: Uint8Array, filename?: string): boolean {
  const ext = filename?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  if (ext === "txt" || ext === "md" || ext === "text" || ext === "markdown") return false;
  const { text } = decodeText(bytes.subarray(0, 64 * 1024));
  const guess = sniffDelimiter(text);
  if (guess.fieldSeparators === 0) return false;
  if (ext === "csv" || ext === "tsv" || ext === "tab") return guess.presence >= 0.6;
  // Without a hint, demand a table-like shape: several records, all cut the same way.
  return guess.records >= 3 && guess.consistency >= 0.9;
}
