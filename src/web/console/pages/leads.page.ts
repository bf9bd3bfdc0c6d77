import { type Child, dataTable, emptyState, h } from "../../shared/dom.ts";
import { api } from "../api.ts";
import { dateTime } from "../format.ts";
import { deploymentFrame, type PageContext } from "../layout.ts";
import type { Lead } from "../types.ts";
import { deliveryBadge } from "./status.ts";

/** The address with break opportunities only before "@" and each ".", so a narrow column never splits a word. */
export function emailParts(email: string): Child[] {
  return email.split(/(?=[@.])/).flatMap((part, i) => (i ? [h("wbr"), part] : [part]));
}

function row(l: Lead): HTMLElement {
  return h(
    "tr",
    null,
    h("td", null, dateTime(l.created_at)),
    h(
      "td",
      { class: "wrap" },
      h("span", { class: "lead-email" }, emailParts(l.email)),
      l.name ? h("div", { class: "muted small" }, l.name) : null,
    ),
    h("td", { class: "wrap hide-sm" }, l.refused_question),
    h("td", { class: "wrap" }, l.message || h("span", { class: "muted" }, "—")),
    h(
      "td",
      null,
      deliveryBadge(l.delivery),
      l.mail_last_error && l.delivery !== "sent" ? h("p", { class: "muted small" }, l.mail_last_error) : null,
    ),
  );
}

export function leadsPage(ctx: PageContext): Promise<Node> {
  return deploymentFrame(ctx, "leads", async (d) => {
    const path = `/deployments/${encodeURIComponent(d.id)}/leads`;
    type Page = { data: Lead[]; next_before: number | null };
    const { data, next_before } = await api<Page>("GET", path);
    const exportLink = h("a", { class: "btn", href: `/owner/api${path}.csv`, download: `leads-${d.id}.csv` }, "Export CSV");
    const body = h("tbody", null, data.map(row));
    // Newest first, a page at a time: older leads stay reachable however many there are.
    let before = next_before;
    const more: HTMLButtonElement = h("button", { class: "btn btn-sm", type: "button", hidden: before === null }, "Show older leads");
    more.addEventListener("click", async () => {
      more.disabled = true;
      try {
        const page = await api<Page>("GET", `${path}?before=${before}`);
        body.append(...page.data.map(row));
        before = page.next_before;
        more.hidden = before === null;
      } finally {
        more.disabled = false;
      }
    });
    const content = data.length
      ? [
          dataTable(["When", "Visitor", { label: "Unanswered question", class: "hide-sm" }, "Message", "Your mail"], body),
          h("div", { class: "actions" }, more),
        ]
      : emptyState(
          "No leads yet",
          d.handoff_enabled
            ? "When the assistant cannot answer, visitors can leave their email for a person. Their requests appear here and are mailed to you."
            : "Handoff is off for this deployment. Turn on “Offer handoff” in Settings so visitors can ask for a person after an unanswered question.",
        );
    return h(
      "section",
      { class: "card" },
      h("div", { class: "card-row" }, h("h2", null, "Leads"), data.length ? exportLink : null),
      content,
    );
  });
}
