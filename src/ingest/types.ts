import type { NewChunk } from "../store/contract/index.ts";

export interface OcrOptions {
  enabled: boolean;
  maxPages: number;
  timeoutMs: number;
  /** a folder with the eng.traineddata to read with instead of the bundled model */
  tessdata?: string;
}

/** A page the reader could not fully trust: read by OCR with low confidence, or yielding nothing. */
export interface PageNote {
  page: number;
  code: "ocr_low_confidence" | "ocr_no_text" | "ocr_skipped" | "ocr_unavailable";
  confidence?: number;
}

/** Kinds of document docchat accepts; decided by sniffing bytes, never by name or Content-Type. */
export type DocumentKind = "pdf" | "docx" | "csv" | "txt";

/**
 * One structural block of a parsed document. Chunking works on blocks so that headings,
 * paragraphs, table rows and pages survive into citations.
 */
export interface Block {
  /** "heading" blocks update the heading path; "row" blocks come from CSV (or tables). */
  type: "heading" | "paragraph" | "list" | "table" | "row";
  text: string;
  /** 1-based page number (PDF) */
  page?: number;
  /** 1-based data-row number (CSV; header is not counted) */
  row?: number;
  /** heading level 1..6 for heading blocks; 0 for a document's title, above its sections */
  level?: number;
  /** a long CSV row's non-empty cells, so the chunker can cut it between cells (row-split.ts) */
  cells?: { name: string; value: string }[];
}

/**
 * What a document says about itself — title, author(s), dates, version, credits — as printed (a Gutenberg header,
 * a title page, a running page header or footer) or recorded (PDF info, DOCX core properties). It becomes the
 * document card: one searchable chunk, so "Who wrote …" and "When was … published" find an answer.
 */
export interface DocumentMeta {
  /** labelled facts in the document's own wording: `{label: "Author", value: "Lewis Carroll"}` */
  fields: { label: string; value: string }[];
}

export interface ParsedDocument {
  kind: DocumentKind;
  blocks: Block[];
  meta?: DocumentMeta;
  /** CSV header line, repeated at the top of every row chunk */
  header?: string;
  pages?: number;
  /** PDF pages read by OCR and their mean confidence (0..100) */
  ocr?: { pages: number; confidence: number };
  /** pages to report: OCR with low confidence, OCR that found nothing, image-only pages left unread */
  notes?: PageNote[];
}

export interface Parser {
  kind: DocumentKind;
  /** Throws AppError('document_unreadable' | 'document_encrypted' | 'no_extractable_text' | 'payload_too_large') */
  parse(bytes: Uint8Array, opts: ParseOptions): Promise<ParsedDocument>;
}

export interface ParseOptions {
  maxPages: number;
  maxInflatedBytes: number;
  /** OCR of image-only PDF pages; off when absent */
  ocr?: OcrOptions;
  /** pages (PDF) done so far, for progress reports; "ocr" while image-only pages are being read */
  onProgress?: (done: number, total: number, phase?: "ocr") => void;
}

/** A chunk ready for indexing: what the store indexes, before its source name, text hash and vector are added. */
/** a chunk as ingest prepares it: its language and terms come at training (rag/analyzer) */
export type ChunkDraft = Omit<NewChunk, "source" | "textHash" | "vector" | "lang" | "terms" | "headingTerms">;
