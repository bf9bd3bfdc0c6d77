import type { ErrorCode } from "../errors/index.ts";
import type { ChunkOptions } from "./chunk.ts";
import type { DocumentKind, OcrOptions, PageNote } from "./types.ts";

/** Hidden CLI command under which a compiled binary re-runs itself as a parse worker. */
export const PARSE_WORKER_COMMAND = "__parse-worker";

/** A document whose bytes and prepared lines together fit this is stored with its row, its chunks in one part. */
export const STORED_INLINE_MAX = 512 * 1024;

/**
 * Parent and worker talk over Bun's IPC channel with small JSON messages; document bytes and prepared chunks
 * travel as files in the spool folder, because one large IPC message is decoded on the receiving event loop in
 * one go (a 60 MB reply stalled the server for 350 ms), while a file is read asynchronously.
 */
export interface PrepareJob {
  type: "job";
  id: number;
  /** the document's bytes: this byte range of this file (an upload's spool file holds the multipart envelope too) */
  input: string;
  start: number;
  end: number;
  /** where to write the prepared chunks when they are too large to send inline */
  output: string;
  filename?: string;
  maxPages: number;
  maxInflatedBytes: number;
  chunking: ChunkOptions;
  ocr: OcrOptions;
  /**
   * The languages the document's deployment pinned, when its chunks may be analyzed here: a worker started with an
   * analyzer (documents/prepare-worker.ts) then adds each small document's chunk terms to its prepared lines, so the
   * training worker does not analyze them on the server's thread.
   */
  languages?: string[];
  /**
   * More documents in the same job (a bulk load's small files: one round trip for many). Each is prepared as
   * the job's own document would be, and the reply is one `batch` message with a result per document, in order.
   */
  more?: PrepareItem[];
}

/** One more document of a batched job: where its bytes are and where a large reply would go. */
export type PrepareItem = Pick<PrepareJob, "input" | "start" | "end" | "output" | "filename" | "languages">;

/** A document's outcome inside a `batch` reply (a `done` message without type and id). */
export type PreparedResult =
  | { ok: true; meta: PreparedMeta; inline?: string; offsets?: number[] }
  | { ok: false; code: ErrorCode; message?: string };

export interface PreparedMeta {
  kind: DocumentKind;
  pages: number | null;
  chunks: number;
  /** pages read by OCR, and their mean confidence (0..100) */
  ocrPages: number;
  ocrConfidence: number | null;
  notes: PageNote[];
}

export type WorkerMessage =
  | { type: "ready" }
  /** `ocr`: image-only pages are being read; the parent allows the OCR time on top of the parse limit */
  | { type: "progress"; id: number; done: number; total: number; ocr?: boolean }
  /**
   * `inline`: the prepared chunks as JSON lines; otherwise they are in the job's output file, cut into parts of
   * whole lines at these byte offsets (so the parent reads and stores one part at a time)
   */
  | { type: "done"; id: number; ok: true; meta: PreparedMeta; inline?: string; offsets?: number[] }
  /** `message`: the parser's own wording for the visitor, when it said more than the code's default */
  | { type: "done"; id: number; ok: false; code: ErrorCode; message?: string }
  /** a batched job's results: the job's own document first, then `more` in order */
  | { type: "batch"; id: number; results: PreparedResult[] };
