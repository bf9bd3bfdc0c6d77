import { chunkDocument } from "./chunk.ts";
import { parseDocument } from "./parse.ts";
import type { PreparedMeta, PrepareJob } from "./parse-worker-protocol.ts";
import type { ChunkDraft } from "./types.ts";

/** Prepared chunks are stored, and trained, in parts of about this many characters (one short transaction each). */
export const PART_CHARS = 24 * 1024;

export interface Prepared {
  meta: PreparedMeta;
  /** one JSON-encoded ChunkDraft per line */
  lines: string;
}

/**
 * Everything CPU-bound about a document, in one place so the parse pool runs it off the server's thread:
 * sniff, parse (OCR for image-only PDF pages), normalise, chunk, and serialise the chunks as JSON lines.
 */
export async function prepareDocument(
  bytes: Uint8Array,
  job: Pick<PrepareJob, "filename" | "maxPages" | "maxInflatedBytes" | "chunking" | "ocr">,
  onProgress?: (done: number, total: number, phase?: "ocr") => void,
): Promise<Prepared> {
  const parsed = await parseDocument(bytes, {
    filename: job.filename,
    maxPages: job.maxPages,
    maxInflatedBytes: job.maxInflatedBytes,
    ocr: job.ocr,
    onProgress,
  });
  const chunks = chunkDocument(parsed, job.chunking);
  const lines: string[] = [];
  for (const c of chunks) lines.push(JSON.stringify(c));
  const ocr = parsed.ocr;
  return {
    meta: {
      kind: parsed.kind,
      pages: parsed.pages ?? null,
      chunks: chunks.length,
      ocrPages: ocr?.pages ?? 0,
      ocrConfidence: ocr && ocr.pages > 0 ? ocr.confidence : null,
      notes: parsed.notes ?? [],
    },
    lines: lines.join("\n"),
  };
}

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
