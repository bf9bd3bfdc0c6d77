import { badge, dataTable, emptyState, field, h } from "../../shared/dom.ts";
import { api } from "../api.ts";
import { actionForm, onSubmit } from "../form-submit.ts";
import { dateTime } from "../format.ts";
import { deploymentFrame, type PageContext } from "../layout.ts";
import type { TestSummary } from "../types.ts";
import { citationButton } from "../viewer-dialog.ts";

const VERDICT: Record<string, string> = {
  correct: "Pass",
  refused_right: "Pass (refused)",
  wrong: "Fail: answer lacks the expected text",
  weak: "Fail: only a near passage, without the expected text",
  refused: "Fail: refused",
  answered_wrongly: "Fail: should have refused",
  error: "Error",
};
const CHANGE: Record<string, [string, "ok" | "bad" | "muted"]> = {
  fixed: ["Now passing", "ok"],
  broke: ["Now failing", "bad"],
  new: ["New", "muted"],
  same: ["", "muted"],
};

function addForm(ctx: PageContext, depId: string): HTMLElement {
  const question = h("input", { type: "text", required: true, maxlength: 4000, placeholder: "e.g. When is the shop open on Saturday?" });
  const kind = h("select", null, h("option", { value: "answer" }, "Should answer"), h("option", { value: "refuse" }, "Should refuse"));
  const expect = h("input", { type: "text", maxlength: 500, placeholder: "e.g. 10:00 (several: separate with |)" });
  return actionForm(
    {
      class: "card",
      heading: "New test question",
      submit: "Add test question",
      action: async () => {
        await api("POST", `/deployments/${encodeURIComponent(depId)}/tests`, {
          question: question.value,
          kind: kind.value,
          expect_any:
            kind.value === "answer"
              ? expect.value
                  .split("|")
                  .map((s) => s.trim())
                  .filter(Boolean)
              : [],
        });
        ctx.toast("Test question added. It runs after every training, or now with “Run now”.", "success");
        ctx.rerender();
      },
    },
    field("Question", question),
    h(
      "div",
      { class: "grid-2" },
      field("Expected", kind),
      field("A right answer contains", expect, "Any one of these passes (case does not matter)."),
    ),
  );
}

export function testsPage(ctx: PageContext): Promise<Node> {
  return deploymentFrame(ctx, "tests", async (d) => {
    const path = `/deployments/${encodeURIComponent(d.id)}/tests`;
    const s = await api<TestSummary>("GET", path);
    const status = h("div");
    const run = h("button", { class: "btn btn-primary btn-sm", type: "button", disabled: !s.questions.length }, "Run now");
    run.addEventListener(
      "click",
      onSubmit(run, status, async () => {
        const r = await api<{ passed: number; total: number }>("POST", `${path}/run`);
        ctx.toast(`Run finished: ${r.passed} of ${r.total} passed.`, r.passed === r.total ? "success" : "info");
        ctx.rerender();
      }),
    );
    const results = new Map(s.results.map((r) => [r.test_question_id, r]));
    const diff = s.latest && s.previous ? s.latest.passed - s.previous.passed : null;
    const summary = s.latest
      ? h(
          "p",
          { class: "run-summary", "data-testid": "run-summary" },
          h("strong", null, `${s.latest.passed} of ${s.latest.total} passed`),
          ` · ${s.latest.trigger === "training" ? "after the training of" : "run by hand"} ${dateTime(s.latest.started_at)}`,
          diff !== null
            ? ` · ${diff === 0 ? "same as" : diff > 0 ? `${diff} more than` : `${-diff} fewer than`} the run before (${s.previous?.passed} of ${s.previous?.total})`
            : "",
        )
      : h("p", { class: "muted" }, "Not run yet: test questions run after every training, or now.");
    const rows = s.questions.map((q) => {
      const r = results.get(q.id);
      const [change, tone] = CHANGE[r?.change ?? "same"] ?? ["", "muted"];
      return h(
        "tr",
        { "data-test": String(q.id), "data-passed": r ? String(r.passed) : "none" },
        h(
          "td",
          { class: "wrap" },
          q.question,
          h("div", { class: "muted small" }, q.kind === "refuse" ? "should refuse" : `contains: ${q.expect_any.join(" | ")}`),
        ),
        h(
          "td",
          null,
          r ? badge(VERDICT[r.verdict] ?? r.verdict, r.passed ? "ok" : "bad") : badge("Not run", "muted"),
          change ? h("div", null, badge(change, tone)) : null,
        ),
        h(
          "td",
          { class: "wrap" },
          r ? h("span", { class: "answer-text" }, r.answer.slice(0, 300)) : null,
          r?.citations.length
            ? h(
                "div",
                { class: "sources" },
                r.citations.map((c) => citationButton(d.id, c)),
              )
            : null,
        ),
        h(
          "td",
          { class: "right" },
          h(
            "button",
            {
              class: "btn btn-ghost btn-sm",
              type: "button",
              "aria-label": `Remove test question: ${q.question}`,
              onclick: async () => {
                await api("DELETE", `${path}/${q.id}`);
                ctx.rerender();
              },
            },
            "Remove",
          ),
        ),
      );
    });
    return h(
      "div",
      { class: "stack" },
      h(
        "section",
        { class: "card" },
        h("div", { class: "card-row" }, h("h2", null, "Test questions"), run),
        status,
        summary,
        s.questions.length
          ? dataTable({ columns: ["Question", "Latest run", "Answer", ""], testid: "tests" }, h("tbody", null, rows))
          : emptyState(
              "No test questions yet",
              "Keep the questions that matter with what a right answer says (or that it should refuse). They run after every training.",
            ),
      ),
      addForm(ctx, d.id),
    );
  });
}
