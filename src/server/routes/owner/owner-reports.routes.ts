import type { Services } from "../../../app.ts";
import type { DayRow } from "../../../store/contract/index.ts";
import { deploymentParams, reportQuery, reportResponse } from "./owner.schemas.ts";
import { deploymentRoutes, type OwnerGuard } from "./owner-guard.ts";

const counts = (d: Omit<DayRow, "day">) => ({
  questions: d.questions,
  answers: d.answers,
  refusals: d.refusals,
  tokens: d.tokens,
  rated_up: d.ratedUp,
  rated_down: d.ratedDown,
  corrections_served: d.correctionsServed,
  leads: d.leads,
});

/** Usage and ratings per day over a date range, with the most asked and most refused questions. */
export function ownerReportRoutes(services: Services, guard: OwnerGuard) {
  return deploymentRoutes(guard, "owner-reports").get(
    "/reports",
    async ({ deployment, query }) => {
      const r = await services.reports.report({
        deploymentId: deployment.id,
        from: query.from,
        to: query.to,
        offsetMinutes: query.tz_offset ?? 0,
      });
      return {
        from: r.from,
        to: r.to,
        days: r.days.map((d) => ({ day: d.day, ...counts(d) })),
        totals: counts(r.totals),
        top_questions: r.topQuestions,
        top_refused: r.topRefused,
      };
    },
    {
      params: deploymentParams,
      query: reportQuery,
      response: { 200: reportResponse },
      detail: { summary: "Per-day questions, answers, refusals, tokens, ratings, corrections served and leads", tags: ["reports"] },
    },
  );
}
