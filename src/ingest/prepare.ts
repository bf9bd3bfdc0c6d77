import { chunkDocument } from "./chunk.ts";
import { parseDocument } from "./parse.ts";
import { type PreparedMeta, type PrepareJob, STORED_INLINE_MAX } from "./parse-worker-protocol.ts";
import type { ChunkDraft } from "./types.ts";

// the server reads prepared lines without loading the parsers: they live apart (prepared-lines.ts)
export { PART_CHARS, readPreparedLines, splitPreparedLines } from "./prepared-lines.ts";

export interface Prepared {
  meta: PreparedMeta;
  /** one JSON-encoded ChunkDraft per line */
  lines: string;
}

/**
 * The analysis of a small document's chunks (documents/prepare-worker.ts gives one; the analyzer sits above ingest/):
 * per chunk, what its prepared line carries besides the draft.
 */
export type AnalyzeChunks = (chunks: ChunkDraft[], languages: string[]) => object[];

/**
 * Analyzed here only when the document will be stored in one part and trained with a batch of small ones (its
 * bytes and its lines, about twice as long with their terms, within STORED_INLINE_MAX); a larger one is analyzed
 * part by part as it is trained.
 */
const analyzedHere = (bytes: Uint8Array, chunks: ChunkDraft[]) =>
  bytes.byteLength + 3 * chunks.reduce((n, c) => n + c.text.length + c.headingPath.length, 0) <= STORED_INLINE_MAX;

/**
 * Everything CPU-bound about a document, in one place so the parse pool runs it off the server's thread:
 * sniff, parse (OCR for image-only PDF pages), normalise, chunk, (a small document, with `analyze` and the job's
 * languages) analyze, and serialise the chunks as JSON lines.
 */
export async function prepareDocument(
  bytes: Uint8Array,
  job: Pick<PrepareJob, "filename" | "maxPages" | "maxInflatedBytes" | "chunking" | "ocr" | "languages">,
  onProgress?: (done: number, total: number, phase?: "ocr") => void,
  analyze?: AnalyzeChunks,
): Promise<Prepared> {
  const parsed = await parseDocument(bytes, {
    filename: job.filename,
    maxPages: job.maxPages,
    maxInflatedBytes: job.maxInflatedBytes,
    ocr: job.ocr,
    onProgress,
  });
  const chunks = chunkDocument(parsed, job.chunking);
  const extra = analyze && job.languages && analyzedHere(bytes, chunks) ? analyze(chunks, job.languages) : [];
  const lines: string[] = [];
  for (const [i, c] of chunks.entries()) lines.push(JSON.stringify(extra[i] ? { ...c, ...extra[i] } : c));
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
