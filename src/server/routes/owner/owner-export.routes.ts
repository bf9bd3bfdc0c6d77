import { t } from "elysia";
import type { Services } from "../../../app.ts";
import { exportStream, parseExportRange } from "../../../owner/chat-export.service.ts";
import { deploymentParams } from "./owner.schemas.ts";
import { deploymentRoutes, type OwnerGuard } from "./owner-guard.ts";

const exportQuery = t.Object({
  format: t.Optional(t.Union([t.Literal("jsonl"), t.Literal("csv")], { description: "jsonl (default) or csv" })),
  from: t.Optional(t.String({ maxLength: 40, description: "first day (YYYY-MM-DD, UTC) or ISO time; default: the first log" })),
  to: t.Optional(t.String({ maxLength: 40, description: "last day, inclusive (YYYY-MM-DD, UTC) or ISO time (exclusive); default: now" })),
});

const TYPES = { jsonl: "application/x-ndjson; charset=utf-8", csv: "text/csv; charset=utf-8" } as const;

/** Conversation export, streamed as it is read: the response never holds more than a page of chat logs. */
export function ownerExportRoutes(services: Services, guard: OwnerGuard) {
  return deploymentRoutes(guard, "owner-export").get(
    "/chat-logs/export",
    async ({ deployment, query }) => {
      const format = query.format ?? "jsonl";
      const range = parseExportRange(query.from, query.to);
      const day = (ms: number) => new Date(Math.min(ms, 8.64e15)).toISOString().slice(0, 10);
      const name = `chat-logs-${deployment.id}-${day(range.from)}-${day(range.to - 1)}.${format}`;
      return new Response(exportStream(services.chatExport.chunks(deployment.id, range, format)), {
        headers: {
          "content-type": TYPES[format],
          "content-disposition": `attachment; filename="${name}"`,
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
        },
      });
    },
    {
      params: deploymentParams,
      query: exportQuery,
      detail: {
        summary:
          "Chat logs for a date range as JSON lines or CSV (question, search_query, answer, sources and citations, refused, rating, correction served, visitor email); streamed; CSV cells a spreadsheet would run as formulas are defused",
        tags: ["chat logs"],
      },
    },
  );
}
