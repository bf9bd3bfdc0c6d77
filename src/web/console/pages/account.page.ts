import { dataTable, emptyState, field, h } from "../../shared/dom.ts";
import { api } from "../api.ts";
import { actionForm } from "../form-submit.ts";
import { dateTime, number } from "../format.ts";
import type { PageContext } from "../layout.ts";
import type { Account } from "../types.ts";
import { erasureCard } from "./privacy.ts";

const REASONS: Record<string, string> = { grant: "Starting balance", set: "Balance set", answer: "Answer" };

function passwordForm(ctx: PageContext): HTMLElement {
  const current = h("input", { type: "password", autocomplete: "current-password", required: true });
  const next = h("input", { type: "password", autocomplete: "new-password", required: true, minlength: 8 });
  const again = h("input", { type: "password", autocomplete: "new-password", required: true, minlength: 8 });
  return actionForm(
    {
      class: "card",
      heading: "Change password",
      submit: "Change password",
      action: async () => {
        if (next.value !== again.value) throw new Error("The new passwords do not match.");
        await api("POST", "/account/password", { current_password: current.value, new_password: next.value });
        for (const i of [current, next, again]) i.value = "";
        ctx.toast("Password changed. Other sessions were signed out.", "success");
      },
    },
    field("Current password", current),
    field("New password", next, "At least 8 characters."),
    field("Repeat new password", again),
  );
}

/** Rows of the token history shown per page; the rest comes with "Show more", so the page stays short. */
export const LEDGER_PAGE = 20;

function ledgerTable(ledger: Account["ledger"]): HTMLElement {
  if (!ledger.length)
    return emptyState("No token history yet", "Answers use tokens from this balance. Refusals and your corrections are free.");
  const row = (l: Account["ledger"][number]) =>
    h(
      "tr",
      null,
      h("td", null, dateTime(l.created_at)),
      h(
        "td",
        { class: "wrap" },
        REASONS[l.reason] ?? l.reason,
        l.deployment_name
          ? h("div", { class: "muted small" }, `${l.deployment_name}${l.question ? ` · “${l.question.slice(0, 120)}”` : ""}`)
          : null,
      ),
      h("td", { class: `num ${l.delta < 0 ? "neg" : "pos"}` }, `${l.delta > 0 ? "+" : ""}${number(l.delta)}`),
      h("td", { class: "num" }, number(l.balance)),
    );
  const body = h("tbody", null, ledger.slice(0, LEDGER_PAGE).map(row));
  const more = h("button", { class: "btn btn-sm", type: "button", "data-testid": "ledger-more" });
  const update = () => {
    const shown = body.children.length;
    more.hidden = shown >= ledger.length;
    more.textContent = `Show ${Math.min(LEDGER_PAGE, ledger.length - shown)} more (${shown} of ${ledger.length} shown)`;
  };
  more.addEventListener("click", () => {
    body.append(...ledger.slice(body.children.length, body.children.length + LEDGER_PAGE).map(row));
    update();
  });
  update();
  return h(
    "div",
    null,
    dataTable({ columns: ["When", "What", { label: "Change", class: "num" }, { label: "Balance", class: "num" }], testid: "ledger" }, body),
    more,
  );
}

export async function accountPage(ctx: PageContext): Promise<Node> {
  const a = await api<Account>("GET", "/account");
  return h(
    "div",
    { class: "stack" },
    h("div", { class: "page-head" }, h("h1", null, "Account")),
    h(
      "section",
      { class: "card balance" },
      h("p", { class: "muted" }, a.email),
      h("p", { class: "balance-value", "data-testid": "balance" }, number(a.tokens)),
      h("p", { class: "muted" }, "tokens left", a.tokens === 0 ? " — answers are paused; corrections are still served" : ""),
    ),
    passwordForm(ctx),
    h("section", { class: "card" }, h("h2", null, "Token history"), ledgerTable(a.ledger)),
    await erasureCard(ctx),
  );
}
