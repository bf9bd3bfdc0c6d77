import { appError } from "../errors/index.ts";
import { csvCell } from "../shared/csv.ts";
import type { ChatLogExportStore, Citation, ExportCursor, ExportedChatLog } from "../store/contract/index.ts";

export type ExportFormat = "jsonl" | "csv";

export interface ExportRange {
  /** ms, inclusive */
  from: number;
  /** ms, exclusive */
  to: number;
}

const DAY_MS = 86_400_000;

/**
 * A date range from the owner's words: `YYYY-MM-DD` (UTC days, `to` inclusive) or full ISO times; either end may be
 * left out (from the first log, up to now).
 */
export function parseExportRange(from?: string, to?: string, now = Date.now()): ExportRange {
  const at = (raw: string, param: string, endOfDay: boolean): number => {
    const day = /^\d{4}-\d{2}-\d{2}$/.test(raw);
    const ms = Date.parse(day ? `${raw}T00:00:00Z` : raw);
    if (!Number.isFinite(ms)) throw appError("bad_request", { param, message: `${param} must be a date (YYYY-MM-DD) or an ISO time.` });
    return day && endOfDay ? ms + DAY_MS : ms;
  };
  const range = { from: from ? at(from, "from", false) : 0, to: to ? at(to, "to", true) : now + 1 };
  if (range.to <= range.from) throw appError("bad_request", { param: "to", message: "to must be after from." });
  return range;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const citationView = (c: Citation) => ({
  document: c.source,
  document_id: c.documentId,
  passage_id: String(c.chunkId),
  page_start: c.pageStart,
  page_end: c.pageEnd,
  row_start: c.rowStart,
  row_end: c.rowEnd,
  heading_path: c.headingPath,
  // the passage as the answer read it (kept since issue 22; older logs have none)
  ...(c.quote ? { quote: c.quote } : {}),
});

/** One exported chat log: what the owner asked for, with names a spreadsheet or a script can read. */
export const exportRecord = (l: ExportedChatLog) => ({
  id: l.id,
  created_at: iso(l.createdAt),
  conversation_id: l.conversationId,
  endpoint: l.endpoint,
  question: l.question,
  search_query: l.searchQuery,
  answer: l.answer,
  refused: l.refused,
  rating: l.rating,
  rated_at: iso(l.ratedAt),
  correction_served: l.correctionId !== null,
  correction_id: l.correctionId,
  sources: l.sources,
  citations: l.citations.map(citationView),
  visitor_email: l.visitorEmail,
  prompt_tokens: l.promptTokens,
  completion_tokens: l.completionTokens,
});

export const CSV_COLUMNS = [
  "id",
  "created_at",
  "conversation_id",
  "endpoint",
  "question",
  "search_query",
  "answer",
  "refused",
  "rating",
  "rated_at",
  "correction_served",
  "correction_id",
  "sources",
  "citations",
  "visitor_email",
  "prompt_tokens",
  "completion_tokens",
] as const;

function csvRow(l: ExportedChatLog): string {
  const r = exportRecord(l);
  const cells = CSV_COLUMNS.map((c) => {
    const v = r[c];
    if (c === "sources") return csvCell(r.sources.join("; "));
    if (c === "citations") return csvCell(JSON.stringify(r.citations));
    return csvCell(typeof v === "boolean" ? String(v) : (v as string | number | null));
  });
  return `${cells.join(",")}\r\n`;
}

/**
 * Conversation export: a deployment's chat logs for a date range as JSON lines or CSV (formula-safe), produced a
 * page at a time so a year of logs never sits in memory — the consumer pulls the next page when it has written
 * the last one.
 */
export function createChatExportService(deps: { store: ChatLogExportStore; pageSize?: number }) {
  const pageSize = deps.pageSize ?? 500;
  async function* logs(deploymentId: string, range: ExportRange): AsyncGenerator<ExportedChatLog[]> {
    let after: ExportCursor | undefined;
    for (;;) {
      const page = await deps.store.page(deploymentId, { ...range, after, limit: pageSize });
      if (page.length > 0) yield page;
      if (page.length < pageSize) return;
      const last = page[page.length - 1] as ExportedChatLog;
      after = { createdAt: last.createdAt, id: last.id };
    }
  }
  return {
    /** The export as text chunks (one per page; the CSV's header first). */
    async *chunks(deploymentId: string, range: ExportRange, format: ExportFormat): AsyncGenerator<string> {
      if (format === "csv") yield `${CSV_COLUMNS.join(",")}\r\n`;
      for await (const page of logs(deploymentId, range))
        yield format === "csv" ? page.map(csvRow).join("") : page.map((l) => `${JSON.stringify(exportRecord(l))}\n`).join("");
    },
  };
}

export type ChatExportService = ReturnType<typeof createChatExportService>;

/** Pulls one chunk at a time: the next page is read only when the reader has taken the last one. */
export function exportStream(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        const { done, value } = await chunks.next();
        if (done) c.close();
        else c.enqueue(encoder.encode(value));
      },
      async cancel() {
        await chunks.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
