import { detectKind } from "./detect.ts";
import { parsers } from "./parsers/index.ts";
import type { ParsedDocument, ParseOptions } from "./types.ts";

export interface ParseDocumentOptions extends ParseOptions {
  /** only used to tell TXT from CSV when the bytes allow both */
  filename?: string;
}

export const DEFAULT_PARSE_OPTIONS: ParseOptions = {
  maxPages: 2000,
  maxInflatedBytes: 256 * 1024 * 1024,
};

/** Sniffs the kind from the bytes, then runs that kind's parser. Throws AppError with a document code. */
export async function parseDocument(bytes: Uint8Array, opts: ParseDocumentOptions): Promise<ParsedDocument> {
  const kind = detectKind(bytes, opts.filename);
  return parsers[kind].parse(bytes, {
    maxPages: opts.maxPages,
    maxInflatedBytes: opts.maxInflatedBytes,
    ocr: opts.ocr,
    onProgress: opts.onProgress,
  });
}
