import { t } from "elysia";
import type { Services } from "../../../app.ts";
import { appError } from "../../../errors/index.ts";
import { toSeconds } from "../../../shared/wire-time.ts";
import { correctionItemView, correctionView } from "../../../visitor/views.ts";
import {
  chatLogParams,
  chatLogSchema,
  chatLogsQuery,
  correctionBody,
  correctionResponse,
  correctionsResponse,
  deploymentParams,
  leadSchema,
  leadsQuery,
  okResponse,
} from "./owner.schemas.ts";
import { deploymentRoutes, type OwnerGuard } from "./owner-guard.ts";
import { ownerChatLogView, ownerLeadView } from "./owner-views.ts";

/** What visitors left behind: chat logs, answers rated 0 and their corrections, leads from handoff. */
export function ownerVisitorRoutes(services: Services, guard: OwnerGuard) {
  return deploymentRoutes(guard, "owner-visitor")
    .get(
      "/corrections",
      async ({ deployment }) => {
        return {
          open: (await services.corrections.list(deployment.id)).map(correctionItemView),
          corrections: (await services.reports.corrections(deployment.id)).map((c) => ({
            id: c.id,
            chat_log_id: c.chatLogId,
            question: c.question,
            answer: c.answer,
            active: c.active,
            served_count: c.servedCount,
            updated_at: toSeconds(c.updatedAt),
          })),
        };
      },
      {
        params: deploymentParams,
        response: { 200: correctionsResponse },
        detail: {
          summary: "Answers rated 0 (question, answer, sources, time) and every correction with its served count",
          tags: ["corrections"],
        },
      },
    )
    .put(
      "/corrections/:chatLogId",
      async ({ deployment, params, body }) => {
        return correctionView(await services.corrections.set(params.chatLogId, body.answer, { deploymentId: deployment.id }));
      },
      {
        params: chatLogParams,
        body: correctionBody,
        response: { 200: correctionResponse },
        detail: { summary: "Write or edit the replacement answer for a rated chat log", tags: ["corrections"] },
      },
    )
    .delete(
      "/corrections/:chatLogId",
      async ({ deployment, params }) => {
        if (!(await services.corrections.remove(params.chatLogId, { deploymentId: deployment.id })))
          throw appError("not_found", { message: "This answer has no active correction." });
        return { success: true as const };
      },
      {
        params: chatLogParams,
        response: { 200: okResponse },
        detail: { summary: "Take a correction out of service", tags: ["corrections"] },
      },
    )
    .get(
      "/chat-logs",
      async ({ deployment, query }) => {
        return {
          data: (await services.chatLogs.list(deployment.id, { limit: query.limit ?? 50, beforeId: query.before })).map(ownerChatLogView),
        };
      },
      {
        params: deploymentParams,
        query: chatLogsQuery,
        response: { 200: t.Object({ data: t.Array(chatLogSchema) }) },
        detail: { summary: "Recent chat logs, newest first (page with `before`)", tags: ["chat logs"] },
      },
    )
    .get(
      "/chat-logs/:chatLogId",
      async ({ deployment, params }) => {
        return ownerChatLogView(await services.chatLogs.getOrThrow(deployment.id, params.chatLogId));
      },
      { params: chatLogParams, response: { 200: chatLogSchema }, detail: { summary: "One chat log", tags: ["chat logs"] } },
    )
    .get(
      "/leads",
      async ({ deployment, query }) => {
        const limit = query.limit ?? 200;
        // One more than asked tells whether an older page exists.
        const rows = await services.leads.list(deployment.id, { limit: limit + 1, beforeId: query.before });
        const data = rows.slice(0, limit);
        return { data: data.map(ownerLeadView), next_before: rows.length > limit ? (data.at(-1)?.id ?? null) : null };
      },
      {
        params: deploymentParams,
        query: leadsQuery,
        response: {
          200: t.Object({
            data: t.Array(leadSchema),
            next_before: t.Union([t.Number(), t.Null()], {
              description: "pass as `before` for the next (older) page; null on the last page",
            }),
          }),
        },
        detail: {
          summary: "Leads from handoff, newest first (page with `limit` and `before`), with the delivery state of the owner's mail",
          tags: ["leads"],
        },
      },
    )
    .get(
      "/leads.csv",
      async ({ deployment }) => {
        return new Response(await services.leads.csv(deployment.id), {
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": `attachment; filename="leads-${deployment.id}.csv"`,
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
          },
        });
      },
      {
        params: deploymentParams,
        detail: { summary: "Leads as CSV (cells that a spreadsheet would run as formulas are defused)", tags: ["leads"] },
      },
    );
}
