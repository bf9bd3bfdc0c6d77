import { appError } from "../errors/index.ts";
import type { DayRow, ReportsStore, TopQuestion } from "../store/contract/index.ts";
import { emptyDay } from "../store/contract/reports.contract.ts";

export const REPORT_MAX_DAYS = 366;
const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface Report {
  from: string;
  to: string;
  days: DayRow[];
  totals: Omit<DayRow, "day">;
  topQuestions: TopQuestion[];
  topRefused: TopQuestion[];
}

export function parseDay(raw: string, param: string): number {
  const ms = DATE.test(raw) ? Date.parse(`${raw}T00:00:00Z`) : Number.NaN;
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== raw) {
    throw appError("bad_request", { param, message: `${param} must be a date like 2025-01-31.` });
  }
  return ms;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Reports per deployment and day over an inclusive date range. Days are the owner's local days: the
 * console sends its UTC offset, so "today" means the same thing in the chart as on the owner's wall.
 */
export function createReportsService(deps: { reports: ReportsStore }) {
  return {
    /** Every correction of a deployment with how often it was served, most served first. */
    corrections(deploymentId: string) {
      return deps.reports.corrections(deploymentId);
    },
    async report(input: { deploymentId: string; from: string; to: string; offsetMinutes: number }): Promise<Report> {
      const from = parseDay(input.from, "from");
      const to = parseDay(input.to, "to");
      if (to < from) throw appError("bad_request", { param: "to", message: "to must not be before from." });
      if ((to - from) / DAY_MS + 1 > REPORT_MAX_DAYS)
        throw appError("bad_request", { param: "to", message: `A report covers at most ${REPORT_MAX_DAYS} days.` });
      if (!Number.isInteger(input.offsetMinutes) || Math.abs(input.offsetMinutes) > 14 * 60) {
        throw appError("bad_request", { param: "tz_offset", message: "tz_offset must be whole minutes from -840 to 840." });
      }
      const shift = input.offsetMinutes * 60_000;
      const range = {
        deploymentId: input.deploymentId,
        fromMs: from - shift,
        toMs: to + DAY_MS - shift,
        offsetMinutes: input.offsetMinutes,
      };
      const found = new Map((await deps.reports.days(range)).map((d) => [d.day, d]));
      const days: DayRow[] = [];
      for (let t = from; t <= to; t += DAY_MS) {
        const day = isoDay(t);
        days.push(found.get(day) ?? emptyDay(day));
      }
      const { day: _, ...totals } = emptyDay("");
      for (const d of days) for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += d[k];
      return {
        from: input.from,
        to: input.to,
        days,
        totals,
        topQuestions: await deps.reports.topQuestions(range, { refusedOnly: false, limit: 10 }),
        topRefused: await deps.reports.topQuestions(range, { refusedOnly: true, limit: 10 }),
      };
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;
