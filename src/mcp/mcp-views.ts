import type { Citation } from "../store/contract/index.ts";

type Located = Pick<Citation, "documentId" | "source" | "headingPath" | "pageStart" | "pageEnd" | "rowStart" | "rowEnd">;

/** A passage's place in its document as agents see it: only the fields that apply. */
export function citationView(c: Located) {
  return {
    document: c.source,
    document_id: c.documentId,
    ...(c.pageStart !== null ? { page_start: c.pageStart, page_end: c.pageEnd ?? c.pageStart } : {}),
    ...(c.rowStart !== null ? { row_start: c.rowStart, row_end: c.rowEnd ?? c.rowStart } : {}),
    ...(c.headingPath ? { heading_path: c.headingPath } : {}),
  };
}

/** Passage ids on the wire: the chunk id as a string (opaque to agents). */
export const passageId = (chunkId: number): string => String(chunkId);

export function parsePassageId(id: string): number | null {
  return /^[1-9][0-9]{0,14}$/.test(id) ? Number(id) : null;
}
