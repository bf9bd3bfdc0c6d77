import type { RetrievalHit } from "../rag/retrieval.types.ts";
import type { Citation } from "../store/contract/index.ts";

/** Enough of a passage to find and highlight it in the document; the whole chunk would bloat every chat log. */
const QUOTE_CHARS = 1200;

/** Where an answer stood, as the chat log keeps it: the passages it was written from. */
export const citationsOf = (hits: RetrievalHit[]): Citation[] =>
  hits.map((h) => ({
    documentId: h.documentId,
    chunkId: h.chunkId,
    source: h.source,
    pageStart: h.pageStart,
    pageEnd: h.pageEnd,
    rowStart: h.rowStart,
    rowEnd: h.rowEnd,
    headingPath: h.headingPath,
    quote: h.text.slice(0, QUOTE_CHARS),
  }));
