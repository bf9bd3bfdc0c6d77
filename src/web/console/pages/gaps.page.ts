import { badge, clear, emptyState, h } from "../../shared/dom.ts";
import { api } from "../api.ts";
import { turnAnswerForm } from "../form-submit.ts";
import { dateTime } from "../format.ts";
import { deploymentFrame, type PageContext } from "../layout.ts";
import { deploymentHref } from "../router.ts";
import type { Gaps } from "../types.ts";

type Group = Gaps["groups"][number];

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

function answerForm(ctx: PageContext, depId: string, g: Group): HTMLElement {
  return turnAnswerForm({
    label: "Answer for this group",
    placeholder: "The answer visitors asking any of these get",
    submit: "Save answer",
    save: async (answer) => {
      const r = await api<{ corrections: number }>("POST", `/deployments/${encodeURIComponent(depId)}/gaps/answer`, {
        chat_log_ids: g.wordings.flatMap((w) => w.chat_log_ids).slice(0, 50),
        answer,
      });
      ctx.toast(`Answer saved for ${plural(r.corrections, "wording")}: visitors asking them get it now, free.`, "success");
      ctx.rerender();
    },
  });
}

function groupCard(ctx: PageContext, depId: string, g: Group, rank: number): HTMLElement {
  const r = g.reasons;
  const why = [
    r.refused ? `${r.refused} refused` : "",
    r.weak ? `${r.weak} weakly answered` : "",
    r.rated_down ? `${r.rated_down} rated not helpful` : "",
    r.handed_off ? `${r.handed_off} handed off` : "",
  ].filter(Boolean);
  const actions = h("div");
  return h(
    "article",
    { class: "card gap-group", "data-terms": g.terms.join(" ") },
    h(
      "div",
      { class: "card-row" },
      h("h3", null, `${rank}. `, g.words.length ? g.words.join(" · ") : "(other wordings)"),
      h(
        "div",
        { class: "flags" },
        badge(plural(g.count, "question"), "warn"),
        g.answered_now ? badge(`${g.answered_now} answered now`, "ok") : null,
      ),
    ),
    h("p", { class: "muted small" }, `${why.join(", ")} · last asked ${dateTime(g.last_at)}`),
    h(
      "ul",
      { class: "wordings" },
      g.wordings
        .slice(0, 6)
        .map((w) =>
          h(
            "li",
            { "data-answered": w.now_answered === null ? "unknown" : String(w.now_answered) },
            h("span", { class: "question-text" }, w.question),
            w.count > 1 ? h("span", { class: "muted small" }, ` ×${w.count}`) : null,
            w.now_answered === true
              ? h("span", { class: "now" }, " ", badge(`answered now${w.now_sources.length ? `: ${w.now_sources.join(", ")}` : ""}`, "ok"))
              : null,
            w.now_answered === false ? h("span", { class: "now" }, " ", badge("still not answered", "muted")) : null,
          ),
        ),
      g.wordings.length > 6 ? h("li", { class: "muted small" }, `…and ${plural(g.wordings.length - 6, "other wording")}`) : null,
    ),
    h(
      "div",
      { class: "actions" },
      h("button", { class: "btn btn-sm", type: "button", onclick: () => clear(actions, answerForm(ctx, depId, g)) }, "Write an answer"),
      h("a", { class: "btn btn-sm", href: deploymentHref(depId, "documents") }, "Upload a document"),
    ),
    actions,
  );
}

export function gapsPage(ctx: PageContext): Promise<Node> {
  return deploymentFrame(ctx, "gaps", async (d) => {
    const r = await api<Gaps>("GET", `/deployments/${encodeURIComponent(d.id)}/gaps?days=90`);
    const open = r.groups.filter((g) => g.answered_now < g.count);
    const fixed = r.groups.filter((g) => g.answered_now >= g.count);
    return h(
      "div",
      { class: "stack" },
      h(
        "section",
        { class: "card" },
        h("h2", null, "What the documents miss"),
        h(
          "p",
          { class: "muted" },
          `Last 90 days: ${plural(r.questions, "question")}, of which ${r.gap_questions} refused, weakly answered, rated not helpful or handed off — grouped by the words they share, most asked and most recent first. After an upload, each wording asked before it is asked again (free, not logged) to show what is answered now.`,
        ),
      ),
      open.length
        ? open.map((g, i) => groupCard(ctx, d.id, g, i + 1))
        : emptyState(
            "No gaps",
            r.questions
              ? "Every question in the last 90 days got an answer."
              : "When visitors ask questions, the ones the documents can't answer are grouped here.",
          ),
      fixed.length
        ? h(
            "section",
            { class: "stack" },
            h("h2", null, "Answered now"),
            fixed.map((g, i) => groupCard(ctx, d.id, g, i + 1)),
          )
        : null,
    );
  });
}
