import { alertBox, clear, emptyState, field, h } from "../../shared/dom.ts";
import { api, errorText } from "../api.ts";
import { barChart, lineChart } from "../chart.ts";
import { daysAgo, isoDay, number } from "../format.ts";
import { deploymentFrame, type PageContext } from "../layout.ts";
import type { Deployment, Report } from "../types.ts";

const METRICS: [keyof Report["totals"], string][] = [
  ["questions", "Questions"],
  ["answers", "Answers"],
  ["refusals", "Refusals"],
  ["tokens", "Tokens used"],
  ["rated_up", "Rated helpful"],
  ["rated_down", "Rated not helpful"],
  ["corrections_served", "Corrections served"],
  ["leads", "Leads"],
];

function topList(title: string, rows: Report["top_questions"], empty: string): HTMLElement {
  return h(
    "section",
    { class: "card" },
    h("h2", null, title),
    rows.length
      ? h(
          "ol",
          { class: "top-list" },
          rows.map((r) => h("li", null, h("span", { class: "wrap" }, r.question), h("span", { class: "count" }, `${r.count}×`))),
        )
      : h("p", { class: "muted" }, empty),
  );
}

function dayTable(r: Report): HTMLElement {
  const active = r.days.filter((d) => METRICS.some(([k]) => d[k] > 0)).reverse();
  return h(
    "div",
    { class: "table-wrap" },
    h("p", { class: "muted small" }, "Newest first; days without any activity are left out."),
    h(
      "table",
      { class: "table table-dense" },
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          h("th", null, "Day"),
          METRICS.map(([, l]) => h("th", { class: "num" }, l)),
        ),
      ),
      h(
        "tbody",
        null,
        active.map((d) =>
          h(
            "tr",
            null,
            h("td", { class: "nowrap" }, d.day),
            METRICS.map(([k]) => h("td", { class: "num" }, number(d[k]))),
          ),
        ),
      ),
      h(
        "tfoot",
        null,
        h(
          "tr",
          null,
          h("th", null, "Total"),
          METRICS.map(([k]) => h("th", { class: "num" }, number(r.totals[k]))),
        ),
      ),
    ),
  );
}

function render(r: Report): Node {
  const days = r.days.map((d) => d.day);
  const col = (k: keyof Report["totals"]) => r.days.map((d) => d[k]);
  const tiles = h(
    "div",
    { class: "tiles" },
    METRICS.map(([k, l]) =>
      h("div", { class: "tile" }, h("span", { class: "tile-value" }, number(r.totals[k])), h("span", { class: "tile-label" }, l)),
    ),
  );
  if (r.totals.questions === 0 && r.totals.leads === 0) {
    return h(
      "div",
      { class: "stack" },
      tiles,
      emptyState(
        "No activity in this period",
        "Once visitors ask questions, their daily counts, ratings and top questions show here. Try a longer range.",
      ),
    );
  }
  return h(
    "div",
    { class: "stack" },
    tiles,
    h(
      "div",
      { class: "grid-2" },
      barChart("Questions per day", days, [
        { label: "Answered", values: col("answers"), tone: "tone-a" },
        { label: "Refused", values: col("refusals"), tone: "tone-b" },
      ]),
      barChart("Ratings and corrections", days, [
        { label: "Helpful", values: col("rated_up"), tone: "tone-a" },
        { label: "Not helpful", values: col("rated_down"), tone: "tone-b" },
        { label: "Corrections served", values: col("corrections_served"), tone: "tone-c" },
      ]),
      lineChart("Tokens used", days, [{ label: "Tokens", values: col("tokens"), tone: "tone-c" }]),
      lineChart("Leads", days, [{ label: "Leads", values: col("leads"), tone: "tone-a" }]),
    ),
    h(
      "div",
      { class: "grid-2" },
      topList("Top questions", r.top_questions, "No questions yet."),
      topList("Top refused questions", r.top_refused, "No refusals: every question found an answer."),
    ),
    h("section", { class: "card" }, h("h2", null, "By day"), dayTable(r)),
  );
}

function body(d: Deployment): Node {
  const from = h("input", { type: "date", value: isoDay(daysAgo(29)) });
  const to = h("input", { type: "date", value: isoDay(new Date()) });
  const out = h("div", { class: "stack" });
  const load = async () => {
    const q = new URLSearchParams({ from: from.value, to: to.value, tz_offset: String(-new Date().getTimezoneOffset()) });
    try {
      clear(out, render(await api<Report>("GET", `/deployments/${encodeURIComponent(d.id)}/reports?${q}`)));
    } catch (err) {
      clear(out, alertBox(errorText(err)));
    }
  };
  const preset = (n: number) =>
    h(
      "button",
      {
        class: "btn btn-sm",
        type: "button",
        onclick: () => {
          from.value = isoDay(daysAgo(n - 1));
          to.value = isoDay(new Date());
          void load();
        },
      },
      `${n} days`,
    );
  const form = h(
    "form",
    {
      class: "card range",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void load();
      },
    },
    field("From", from),
    field("To", to),
    h("button", { class: "btn btn-primary", type: "submit" }, "Show"),
    h("div", { class: "presets" }, preset(7), preset(30), preset(90)),
  );
  void load();
  return h("div", { class: "stack" }, form, out);
}

export function reportsPage(ctx: PageContext): Promise<Node> {
  return deploymentFrame(ctx, "reports", (d) => body(d));
}
