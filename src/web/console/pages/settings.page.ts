import { field, h } from "../../shared/dom.ts";
import { api } from "../api.ts";
import { onSubmit } from "../form-submit.ts";
import { optionalNumberInput } from "../inputs.ts";
import { deploymentFrame, type PageContext } from "../layout.ts";
import type { Deployment } from "../types.ts";
import { widgetSnippet } from "./key-once.ts";
import { policyCard } from "./privacy.ts";

const lines = (s: string) =>
  s
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

const MODE_NAMES: Record<string, string> = { keyword: "keyword only", embeddings: "keywords + embeddings", reranker: "with a reranker" };

/** The threshold field explains itself: which retrieval mode runs, what the score is, and the mode's default. */
function thresholdField(d: Deployment) {
  const r = d.retrieval;
  const { input, value } = optionalNumberInput({
    min: 0,
    max: 1,
    step: 0.01,
    value: d.refusal_threshold,
    placeholder: `default ${r.default_threshold}`,
  });
  const hint = `Retrieval mode: ${MODE_NAMES[r.mode] ?? r.mode}. Questions whose best passage scores below this are refused (free, no model call); the score is ${r.judged_by}. Empty = the default for this mode (${r.default_threshold}). Higher refuses more, lower answers more loosely.`;
  return { el: field("Refusal threshold", input, hint), value };
}

/**
 * The languages the documents are written in: empty lets docchat detect them per document (what it found is shown);
 * pinning helps when detection is unsure (short documents, languages close to each other such as Danish and Norwegian).
 */
function languagesField(d: Deployment) {
  const input = h("input", { type: "text", value: d.languages.join(", "), placeholder: "auto", maxlength: 100, class: "mono" });
  const found = d.detected_languages.map((l) => `${l.lang} (${l.documents} document${l.documents === 1 ? "" : "s"})`).join(", ");
  const hint = `Comma-separated codes, e.g. "de, en". Empty = detect each document's language${found ? `; detected: ${found}` : ""}. Words are stemmed and stop words dropped per language; a change re-indexes the documents.`;
  const value = () =>
    input.value
      .split(",")
      .map((c) => c.trim())
      .filter((c) => c !== "" && c.toLowerCase() !== "auto");
  return { el: field("Document languages", input, hint), value };
}

function qaEditor(initial: { question: string; answer: string }[]) {
  const rows = h("div", { class: "qa-rows" });
  const add = (q = "", a = "") => {
    const question = h("input", { type: "text", value: q, placeholder: "e.g. Do you ship abroad?", maxlength: 500 });
    const answer = h("textarea", { rows: 2, value: a, placeholder: "The answer visitors see", maxlength: 4000 });
    const row: HTMLElement = h(
      "div",
      { class: "qa-row" },
      h("label", { class: "qa-field" }, h("span", { class: "label" }, "Question"), question),
      h("label", { class: "qa-field" }, h("span", { class: "label" }, "Answer"), answer),
      h(
        "button",
        { class: "btn btn-ghost btn-sm", type: "button", "aria-label": "Remove this Q&A pair", onclick: () => row.remove() },
        "Remove",
      ),
    );
    rows.append(row);
  };
  for (const p of initial) add(p.question, p.answer);
  const el = h(
    "div",
    { class: "field" },
    h("span", { class: "label" }, "Q&A pairs"),
    h("p", { class: "hint" }, "Ready answers shown in the widget and returned by the details endpoint."),
    rows,
    h("button", { class: "btn btn-sm", type: "button", onclick: () => add() }, "+ Add Q&A pair"),
  );
  const value = () =>
    [...rows.querySelectorAll(".qa-row")]
      .map((r) => ({
        question: (r.querySelector("input") as HTMLInputElement).value.trim(),
        answer: (r.querySelector("textarea") as HTMLTextAreaElement).value.trim(),
      }))
      .filter((p) => p.question || p.answer);
  return { el, value };
}

function settingsForm(d: Deployment, onSaved: (d: Deployment) => void): HTMLElement {
  const name = h("input", { type: "text", value: d.name, required: true, maxlength: 200 });
  const published = h("input", { type: "checkbox", checked: d.published });
  const persona = h("textarea", {
    rows: 4,
    value: d.persona,
    maxlength: 4000,
    placeholder: "e.g. You are the friendly help desk of Acme. Answer briefly.",
  });
  const temperature = h("input", { type: "number", min: 0, max: 2, step: 0.1, value: String(d.temperature) });
  const starters = h("textarea", { rows: 3, value: d.starter_questions.join("\n"), placeholder: "One question per line" });
  const handoff = h("input", { type: "checkbox", checked: d.handoff_enabled });
  const ipAllow = h("textarea", { rows: 3, value: d.ip_allow.join("\n"), class: "mono", placeholder: "203.0.113.0/24\n2001:db8::/32" });
  const pushEnabled = h("input", { type: "checkbox", checked: d.push_enabled });
  const pushIpAllow = h("textarea", { rows: 2, value: d.push_ip_allow.join("\n"), class: "mono", placeholder: "198.51.100.10/32" });
  const keyManages = h("input", { type: "checkbox", checked: d.key_manages_documents });
  const pushMaxDocuments = h("input", { type: "number", min: 0, step: 1, value: String(d.push_max_documents) });
  const pushMaxMb = h("input", { type: "number", min: 0, step: 1, value: String(Math.floor(d.push_max_bytes / 1048576)) });
  const qa = qaEditor(d.qa_pairs);
  const threshold = thresholdField(d);
  const languages = languagesField(d);
  const refusal = h("textarea", {
    rows: 2,
    value: d.refusal_text ?? "",
    maxlength: 1000,
    placeholder: "Empty = docchat's own, in the visitor's language",
  });
  const status = h("div", { class: "form-status" });
  const submit = h("button", { class: "btn btn-primary", type: "submit" }, "Save settings");
  return h(
    "form",
    {
      class: "card",
      onsubmit: onSubmit(submit, status, async () => {
        const saved = await api<Deployment>("PATCH", `/deployments/${encodeURIComponent(d.id)}`, {
          name: name.value,
          published: published.checked,
          persona: persona.value,
          temperature: Number(temperature.value),
          starter_questions: lines(starters.value),
          qa_pairs: qa.value(),
          handoff_enabled: handoff.checked,
          ip_allow: lines(ipAllow.value),
          push_enabled: pushEnabled.checked,
          push_ip_allow: lines(pushIpAllow.value),
          key_manages_documents: keyManages.checked,
          push_max_documents: Math.max(0, Math.floor(Number(pushMaxDocuments.value))),
          push_max_bytes: Math.max(0, Math.floor(Number(pushMaxMb.value))) * 1048576,
          refusal_threshold: threshold.value(),
          languages: languages.value(),
          refusal_text: refusal.value.trim() === "" ? null : refusal.value,
        });
        onSaved(saved);
      }),
    },
    status,
    field("Name", name),
    h(
      "label",
      { class: "check" },
      published,
      h("span", null, h("strong", null, "Published"), " — visitors can chat with it (needs a trained document set)"),
    ),
    field(
      "Persona",
      persona,
      d.answers_by_model
        ? "Sets the tone of answers. Visitors cannot override it."
        : "Applies only when a language model writes the answers. This install answers with passages from your documents, so the persona is not used yet.",
    ),
    field(
      "Default temperature",
      temperature,
      d.answers_by_model
        ? "0 = most precise, 2 = most varied. Requests may override it per call."
        : "Applies only when a language model writes the answers; extractive answers (this install) don't use it.",
    ),
    field("Starter questions", starters, "Shown as one-tap suggestions in the widget. One per line."),
    languages.el,
    field(
      "Refusal message",
      refusal,
      "Said when the documents do not answer a question (free, no model call). Your text is used for every visitor; empty = docchat's, in English, German, French, Spanish, Italian, Portuguese or Dutch to match the visitor.",
    ),
    qa.el,
    h(
      "label",
      { class: "check" },
      handoff,
      h(
        "span",
        null,
        h("strong", null, "Offer handoff"),
        " — after a question the assistant cannot answer, visitors may leave their email for a person",
      ),
    ),
    d.mail_enabled
      ? null
      : h(
          "p",
          { class: "alert alert-warn", "data-testid": "handoff-mail-off" },
          "Mail is off on this server (DOCCHAT_SMTP_URL is not set): handoff requests are listed under Leads but nobody is emailed, and the widget does not promise the visitor an email.",
        ),
    field("IP allow-list", ipAllow, "Optional. One address or CIDR per line; when set, only these addresses may call this deployment."),
    h(
      "fieldset",
      { class: "field" },
      h("legend", { class: "label" }, "Documents and the API key"),
      h(
        "p",
        { class: "hint", "data-testid": "key-is-public" },
        "The API key is public: anyone can read it from a page that embeds the widget. Decide what it may do with documents.",
      ),
      h(
        "label",
        { class: "check" },
        pushEnabled,
        h(
          "span",
          null,
          h("strong", null, "Allow document pushes with the key"),
          " — POST /api/v1/documents adds documents to this deployment",
        ),
      ),
      field(
        "Addresses allowed to push",
        pushIpAllow,
        "Optional. One address or CIDR per line, e.g. your build server; when set, pushes from anywhere else are refused.",
      ),
      h(
        "p",
        { class: "hint" },
        "Pushes with the key never replace or remove documents you upload here, and they have their own storage share below: they cannot use up your account's storage.",
      ),
      field("Pushed documents at most", pushMaxDocuments, "Documents the key may keep pushed in this deployment."),
      field("Pushed storage at most (MB)", pushMaxMb, "Storage the key's pushes may take in this deployment."),
      h(
        "label",
        { class: "check" },
        keyManages,
        h(
          "span",
          null,
          h("strong", null, "Allow listing and removing documents with the key"),
          " — leave off unless the key is kept secret (not used by a widget)",
        ),
      ),
    ),
    threshold.el,
    submit,
  );
}

export function settingsPage(ctx: PageContext): Promise<Node> {
  return deploymentFrame(ctx, "settings", async (d) =>
    h(
      "div",
      { class: "stack" },
      settingsForm(d, () => {
        ctx.toast("Settings saved.", "success");
        ctx.rerender();
      }),
      await policyCard(ctx, d),
      h(
        "section",
        { class: "card" },
        h("h2", null, "Embed the widget"),
        h(
          "p",
          { class: "muted" },
          "Put this tag on your site with your key in place of YOUR_KEY (the key is shown once when created; regenerate it on the Key tab if lost).",
        ),
        h(
          "p",
          { class: "muted" },
          "The widget key is visible to every visitor of that page. Limit what it can do above, and use the IP allow-list when only known servers call the API.",
        ),
        h("pre", { class: "code" }, widgetSnippet("YOUR_KEY")),
      ),
    ),
  );
}
