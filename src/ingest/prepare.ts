import { chunkDocument } from "./chunk.ts";
import { parseDocument } from "./parse.ts";
import type { PreparedMeta, PrepareJob } from "./parse-worker-protocol.ts";

// the server reads prepared lines without loading the parsers: they live apart (prepared-lines.ts)
export { PART_CHARS, readPreparedLines, splitPreparedLines } from "./prepared-lines.ts";

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
