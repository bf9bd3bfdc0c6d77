import { badge, clear, dataTable, emptyState, field, h } from "../../shared/dom.ts";
import { api, errorText } from "../api.ts";
import { dateTime, isoDay } from "../format.ts";
import { deploymentFrame, type PageContext } from "../layout.ts";
import { deploymentHref } from "../router.ts";
import type { ConversationList, ConversationSummary } from "../types.ts";

/** The chat logs: conversations, newest activity first, filtered by what happened in them. */
function row(depId: string, c: ConversationSummary): HTMLElement {
  const flags = [
    c.refused ? badge(`${c.refused} refused`, "warn") : null,
    c.rated_down ? badge(`${c.rated_down} rated not helpful`, "bad") : null,
    c.handed_off ? badge("Handed off", "muted") : null,
  ];
  return h(
    "tr",
    { "data-conversation": c.conversation_id },
    h("td", { class: "nowrap" }, dateTime(c.last_at)),
    h(
      "td",
      { class: "wrap" },
      h("a", { href: `${deploymentHref(depId, "chats")}/${encodeURIComponent(c.conversation_id)}` }, c.first_question || "(text not kept)"),
      c.visitor_email ? h("div", { class: "muted small" }, c.visitor_email) : null,
    ),
    h("td", { class: "num" }, String(c.turns)),
    h("td", { class: "flags" }, flags),
  );
}

function filters(onChange: (q: URLSearchParams) => void): HTMLElement {
  const check = (name: string, label: string) => {
    const input = h("input", { type: "checkbox", name });
    return { input, el: h("label", { class: "check inline" }, input, h("span", null, label)) };
  };
  const refused = check("refused", "Refused");
  const rated = check("rated_down", "Rated not helpful");
  const handed = check("handed_off", "Handed off");
  const from = h("input", { type: "date", name: "from" });
  const to = h("input", { type: "date", name: "to", max: isoDay(new Date()) });
  const text = h("input", { type: "search", name: "q", placeholder: "Words in a question or answer", maxlength: 200 });
  const apply = h("button", { class: "btn btn-primary btn-sm", type: "submit" }, "Filter");
  return h(
    "form",
    {
      class: "card filters",
      role: "search",
      "aria-label": "Filter conversations",
      onsubmit: (e: Event) => {
        e.preventDefault();
        const q = new URLSearchParams();
        if (refused.input.checked) q.set("refused", "true");
        if (rated.input.checked) q.set("rated_down", "true");
        if (handed.input.checked) q.set("handed_off", "true");
        if (from.value) q.set("from", from.value);
        if (to.value) q.set("to", to.value);
        if (text.value.trim()) q.set("q", text.value.trim());
        q.set("tz_offset", String(-new Date().getTimezoneOffset()));
        onChange(q);
      },
    },
    h("div", { class: "filter-row" }, refused.el, rated.el, handed.el),
    h("div", { class: "grid-3" }, field("From", from), field("To", to), field("Text", text)),
    apply,
  );
}

export function chatsPage(ctx: PageContext): Promise<Node> {
  return deploymentFrame(ctx, "chats", async (d) => {
    const path = `/deployments/${encodeURIComponent(d.id)}/conversations`;
    const list = h("div");
    let query = new URLSearchParams();
    const load = async () => {
      clear(list, h("p", { class: "loading" }, h("span", { class: "spinner" }), " Loading…"));
      try {
        const r = await api<ConversationList>("GET", `${path}?${query}`);
        const body = h(
          "tbody",
          null,
          r.data.map((c) => row(d.id, c)),
        );
        let before = r.next_before;
        const more = h("button", { class: "btn btn-sm", type: "button", hidden: before === null }, "Show older conversations");
        more.addEventListener("click", async () => {
          more.disabled = true;
          const page = await api<ConversationList>("GET", `${path}?${query}&before=${before}`).finally(() => {
            more.disabled = false;
          });
          body.append(...page.data.map((c) => row(d.id, c)));
          before = page.next_before;
          more.hidden = before === null;
        });
        clear(
          list,
          r.data.length
            ? dataTable(
                {
                  columns: ["Last activity", "First question", { label: "Turns", class: "num" }, "What happened"],
                  testid: "conversations",
                  after: h("div", { class: "actions" }, more),
                },
                body,
              )
            : emptyState(
                query.toString() ? "No conversation matches" : "No conversations yet",
                query.toString()
                  ? "Try fewer filters or a wider date range."
                  : "When visitors ask questions (widget or API), their conversations appear here with what they were answered.",
              ),
        );
      } catch (err) {
        clear(list, h("div", { class: "alert alert-error", role: "alert" }, errorText(err)));
      }
    };
    await load();
    return h(
      "div",
      { class: "stack" },
      filters((q) => {
        query = q;
        void load();
      }),
      h("section", { class: "card" }, h("h2", null, "Conversations"), list),
    );
  });
}
