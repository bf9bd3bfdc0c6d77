import { alertBox, badge, clear, field, h } from "../../shared/dom.ts";
import { api } from "../api.ts";
import { actionForm, turnAnswerForm } from "../form-submit.ts";
import { dateTime } from "../format.ts";
import { deploymentFrame, type PageContext } from "../layout.ts";
import { deploymentHref } from "../router.ts";
import type { Conversation, Turn } from "../types.ts";
import { citationButton } from "../viewer-dialog.ts";

/** "Write a correction": the answer visitors asking this question get from now on. */
function correctionForm(ctx: PageContext, depId: string, t: Turn): HTMLElement {
  return turnAnswerForm({
    label: "Replacement answer",
    placeholder: "The answer visitors asking this should get",
    submit: "Save correction",
    save: async (answer) => {
      await api("PUT", `/deployments/${encodeURIComponent(depId)}/corrections/${t.id}`, { answer });
      ctx.toast("Correction saved. Visitors asking this question now get your answer.", "success");
      ctx.rerender();
    },
  });
}

/** "Add to test questions": the expected text of a right answer, or "should refuse". */
function testForm(ctx: PageContext, depId: string, t: Turn): HTMLElement {
  const kind = h(
    "select",
    null,
    h("option", { value: "answer" }, "Should answer, with…"),
    h("option", { value: "refuse", selected: t.refused }, "Should refuse"),
  );
  const expect = h("input", { type: "text", maxlength: 500, placeholder: "text a right answer contains, e.g. 9:00" });
  return actionForm(
    {
      class: "turn-action",
      submit: "Add test question",
      submitClass: "btn btn-sm",
      action: async () => {
        await api("POST", `/deployments/${encodeURIComponent(depId)}/tests`, {
          question: t.question,
          kind: kind.value,
          expect_any: kind.value === "answer" ? [expect.value] : [],
        });
        ctx.toast("Added to test questions: it runs after every training.", "success");
      },
    },
    h("div", { class: "grid-2" }, field("Expected", kind), field("Answer contains", expect)),
  );
}

function turnCard(ctx: PageContext, depId: string, t: Turn): HTMLElement {
  const actions = h("div", { class: "turn-actions" });
  const toggle = (label: string, make: () => HTMLElement) =>
    h("button", { class: "btn btn-ghost btn-sm", type: "button", onclick: () => clear(actions, make()) }, label);
  return h(
    "article",
    { class: "card turn", "data-turn": String(t.id) },
    h(
      "div",
      { class: "card-row" },
      h("p", { class: "muted small" }, dateTime(t.created_at), ` · ${t.tokens} tokens`),
      h(
        "div",
        { class: "flags" },
        t.refused ? badge("Refused", "warn") : null,
        t.weak ? badge("Weak answer", "warn") : null,
        t.rating === 0 ? badge("Rated not helpful", "bad") : t.rating === 1 ? badge("Rated helpful", "ok") : null,
        t.correction_id !== null ? badge("Your correction served", "ok") : null,
        t.corrected_by !== null ? badge("Corrected", "ok") : null,
      ),
    ),
    h(
      "p",
      { class: "q" },
      h("span", { class: "label" }, "Question"),
      h("span", { class: "question-text" }, t.question || "(text not kept)"),
    ),
    t.search_query && t.search_query !== t.question
      ? h("p", { class: "q" }, h("span", { class: "label" }, "Searched for"), h("span", { class: "search-query" }, t.search_query))
      : null,
    h("p", { class: "a" }, h("span", { class: "label" }, "Answer"), h("span", { class: "answer-text" }, t.answer)),
    t.citations.length
      ? h(
          "div",
          { class: "sources" },
          h("span", { class: "label" }, "Cited"),
          t.citations.map((c) => citationButton(depId, c)),
        )
      : t.sources.length
        ? h(
            "p",
            { class: "sources" },
            h("span", { class: "label" }, "Sources"),
            t.sources.map((s) => h("span", { class: "chip" }, s)),
          )
        : null,
    t.question
      ? h(
          "div",
          { class: "actions" },
          toggle(t.corrected_by !== null ? "Edit the correction" : "Write a correction", () => correctionForm(ctx, depId, t)),
          toggle("Add to test questions", () => testForm(ctx, depId, t)),
        )
      : null,
    actions,
  );
}

/** Erases this conversation (its turns, leads and their mails), after the owner confirms. */
function eraseButton(ctx: PageContext, depId: string, conversationId: string): HTMLElement {
  const status = h("div");
  const button = h("button", { class: "btn btn-sm danger", type: "button" }, "Erase this conversation");
  button.addEventListener("click", async () => {
    if (!confirm("Erase this conversation for good? Its turns, leads and their mails are removed; a record that it was done is kept."))
      return;
    button.disabled = true;
    try {
      await api("POST", "/erasures", { conversation_id: conversationId, deployment_id: depId });
      ctx.toast("The conversation was erased.", "success");
      ctx.go(deploymentHref(depId, "chats"));
    } catch (e) {
      clear(status, alertBox((e as Error).message));
      button.disabled = false;
    }
  });
  return h("div", null, status, button);
}

export function conversationPage(ctx: PageContext): Promise<Node> {
  return deploymentFrame(ctx, "conversation", async (d) => {
    const id = ctx.params.conversationId ?? "";
    const c = await api<Conversation>("GET", `/deployments/${encodeURIComponent(d.id)}/conversations/${encodeURIComponent(id)}`);
    return h(
      "div",
      { class: "stack" },
      h(
        "div",
        { class: "card-row" },
        h("p", null, h("a", { href: deploymentHref(d.id, "chats") }, "← All conversations")),
        eraseButton(ctx, d.id, id),
      ),
      h("h2", null, "Conversation ", h("code", null, c.conversation_id)),
      c.leads.length
        ? h(
            "div",
            { class: "alert alert-info", role: "status" },
            `The visitor asked for a person: ${c.leads.map((l) => `${l.email}${l.message ? ` — “${l.message}”` : ""}`).join("; ")}`,
          )
        : null,
      c.turns.map((t) => turnCard(ctx, d.id, t)),
    );
  });
}
