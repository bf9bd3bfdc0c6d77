import type { ChunkDraft } from "./types.ts";

/**
 * Prepared chunks as the parse pool hands them over: one JSON-encoded ChunkDraft per line, stored and trained in
 * parts of whole lines. Kept apart from prepare.ts so the server, which only reads them, never loads the parsers
 * (pdf.js, mammoth, csv-parse) — those run in the parse workers.
 */
/** Prepared chunks are stored, and trained, in parts of about this many characters (one short transaction each). */
export const PART_CHARS = 24 * 1024;

/** Reads back the chunks of `prepareDocument`'s lines (or of one stored part of them). */
export function readPreparedLines(text: string): ChunkDraft[] {
  const out: ChunkDraft[] = [];
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf("\n", at);
    if (end === -1) end = text.length;
    if (end > at) out.push(JSON.parse(text.slice(at, end)) as ChunkDraft);
    at = end + 1;
  }
  return out;
}

/** Cuts JSON lines into parts of at most about `maxChars`, always at a line end. */
export function splitPreparedLines(text: string, maxChars: number): string[] {
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = start + maxChars;
    if (end >= text.length) end = text.length;
    else {
      const before = text.lastIndexOf("\n", end);
      const after = text.indexOf("\n", end);
      end = before > start ? before : after === -1 ? text.length : after;
    }
    parts.push(text.slice(start, end));
    start = end + 1;
  }
  return parts;
}
