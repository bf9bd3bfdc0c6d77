import { dataTable, emptyState, field, h } from "../../shared/dom.ts";
import { api } from "../api.ts";
import { actionForm, onSubmit } from "../form-submit.ts";
import { dateTime } from "../format.ts";
import { optionalNumberInput } from "../inputs.ts";
import type { PageContext } from "../layout.ts";
import type { Deployment, Erasure, Policy } from "../types.ts";

/** Settings → "Privacy and citations": retention, no transcripts, what visitors may open from a citation. */
export async function policyCard(ctx: PageContext, d: Deployment): Promise<HTMLElement> {
  const path = `/deployments/${encodeURIComponent(d.id)}/policy`;
  const p = await api<Policy>("GET", path);
  const keep = optionalNumberInput({ min: 1, max: 3650, step: 1, value: p.retention_days, placeholder: "keep" });
  const transcripts = h("input", { type: "checkbox", checked: !p.transcripts });
  const cites = h(
    "select",
    null,
    h("option", { value: "off", selected: p.widget_citations === "off" }, "Visitors see source names only"),
    h(
      "option",
      { value: "page", selected: p.widget_citations === "page" },
      "Visitors can open the cited page (a link valid for 15 minutes)",
    ),
    h("option", { value: "document", selected: p.widget_citations === "document" }, "Visitors can open the whole document"),
  );
  return actionForm(
    {
      class: "card",
      attrs: { "data-testid": "policy" },
      heading: "Privacy and citations",
      submit: "Save privacy settings",
      action: async () => {
        await api("PUT", path, {
          retention_days: keep.value(),
          transcripts: !transcripts.checked,
          widget_citations: cites.value,
        });
        ctx.toast("Privacy settings saved.", "success");
      },
    },
    field(
      "Keep chat logs for (days)",
      keep.input,
      "Empty keeps them until you erase them. Older chat logs are removed by a background job; the counts in Reports stay.",
    ),
    h(
      "label",
      { class: "check" },
      transcripts,
      h(
        "span",
        null,
        h("strong", null, "Don't keep transcripts"),
        " — a conversation's text is erased 30 minutes after its last turn (questions rated not helpful stay, so you can correct them)",
      ),
    ),
    field("Citations in the widget", cites, "In the console you can always open what an answer cited."),
  );
}

/** Account → "Erase a visitor's data": by email or conversation id, in every deployment; the record of erasures. */
export async function erasureCard(ctx: PageContext): Promise<HTMLElement> {
  const { data } = await api<{ data: Erasure[] }>("GET", "/erasures");
  const email = h("input", { type: "email", maxlength: 320, placeholder: "visitor@example.com" });
  const conv = h("input", { type: "text", maxlength: 200, placeholder: "conv-…" });
  const status = h("div");
  const go = h("button", { class: "btn btn-primary danger", type: "submit" }, "Erase");
  const rows = data.map((e) =>
    h(
      "tr",
      null,
      h("td", null, dateTime(e.created_at)),
      h(
        "td",
        null,
        e.subject_kind === "email" ? "Email" : "Conversation",
        h("div", { class: "muted small mono" }, `${e.subject_hash.slice(0, 16)}…`),
      ),
      h(
        "td",
        null,
        `${e.chat_logs} chat logs, ${e.leads} leads, ${e.mails} mails`,
        e.corrections_kept ? h("div", { class: "muted small" }, `${e.corrections_kept} kept emptied under a correction`) : null,
      ),
      h("td", null, e.via),
    ),
  );
  return h(
    "form",
    {
      class: "card",
      "data-testid": "erasure",
      onsubmit: onSubmit(go, status, async () => {
        const body = email.value.trim() ? { email: email.value.trim() } : { conversation_id: conv.value.trim() };
        if (!confirm("Erase this visitor's chat logs, leads and lead mails in every deployment? This cannot be undone.")) return;
        const r = await api<Erasure>("POST", "/erasures", body);
        ctx.toast(`Erased: ${r.chat_logs} chat logs, ${r.leads} leads, ${r.mails} mails.`, "success");
        ctx.rerender();
      }),
    },
    h("h2", null, "Erase a visitor's data"),
    h(
      "p",
      { class: "muted" },
      "For a deletion request: give the visitor's email or a conversation id. A record that it was done is kept, with the identifier only as a fingerprint.",
    ),
    status,
    h("div", { class: "grid-2" }, field("Visitor's email", email), field("or conversation id", conv)),
    go,
    data.length
      ? dataTable({ columns: ["When", "By", "Removed", "From"], testid: "erasures" }, h("tbody", null, rows))
      : emptyState("No erasures yet", "Erasures you make appear here."),
  );
}
