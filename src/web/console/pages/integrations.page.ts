import { field, h } from "../../shared/dom.ts";
import { api } from "../api.ts";
import { onSubmit } from "../form-submit.ts";
import { daysAgo, isoDay } from "../format.ts";
import { deploymentFrame, type PageContext } from "../layout.ts";
import type { Deployment } from "../types.ts";
import { webhooksSection } from "./webhooks-section.ts";

/** Agents (the MCP server and what it tells them), webhooks, and the conversation export. */
function mcpSection(ctx: PageContext, d: Deployment): HTMLElement {
  const url = `${location.origin}/api/v1/mcp`;
  const config = JSON.stringify(
    {
      mcpServers: { [d.name.toLowerCase().replace(/[^a-z0-9]+/g, "-") || "docchat"]: { url, headers: { Authorization: "Bearer dck_…" } } },
    },
    null,
    2,
  );
  const description = h("textarea", {
    rows: 3,
    maxlength: 2000,
    value: d.description,
    placeholder: "Refunds, plans and support hours of Acme Cloud.",
  });
  const status = h("div", { class: "form-status" });
  const save = h("button", { class: "btn btn-sm", type: "submit" }, "Save description");
  const form = h(
    "form",
    { class: "stack" },
    field("What agents are told the documents cover", description),
    status,
    h("div", { class: "actions" }, save),
  );
  form.addEventListener(
    "submit",
    onSubmit(save, status, async () => {
      await api("PATCH", `/deployments/${encodeURIComponent(d.id)}`, { description: description.value });
      ctx.toast("Description saved.", "success");
    }),
  );
  return h(
    "section",
    { class: "card" },
    h("h2", null, "AI agents (MCP)"),
    h(
      "p",
      null,
      "Claude, ChatGPT, Cursor and other agents can search these documents and ask grounded questions with citations through the MCP server at ",
      h("code", { "data-testid": "mcp-url" }, url),
      ", with this deployment's key as the bearer token. Answers cost tokens like any chat answer; refusals and searches are free.",
    ),
    h("pre", { class: "mono" }, config),
    form,
  );
}

function exportSection(d: Deployment): HTMLElement {
  const from = h("input", { type: "date", value: isoDay(daysAgo(30)) });
  const to = h("input", { type: "date", value: isoDay(new Date()) });
  const format = h("select", null, h("option", { value: "csv" }, "CSV (spreadsheets)"), h("option", { value: "jsonl" }, "JSON lines"));
  const link = h("a", { class: "btn btn-primary", "data-testid": "export-chat-logs" }, "Export conversations");
  const update = () => {
    const q = new URLSearchParams({
      format: format.value,
      ...(from.value ? { from: from.value } : {}),
      ...(to.value ? { to: to.value } : {}),
    });
    link.setAttribute("href", `/owner/api/deployments/${encodeURIComponent(d.id)}/chat-logs/export?${q}`);
  };
  for (const el of [from, to, format]) el.addEventListener("change", update);
  update();
  return h(
    "section",
    { class: "card" },
    h("h2", null, "Conversation export"),
    h(
      "p",
      { class: "muted" },
      "Every question, answer, source, rating and correction in the date range (UTC days), with the visitor's email where given.",
    ),
    h(
      "div",
      { class: "card-row wrap" },
      field("From", from),
      field("To", to),
      field("Format", format),
      h("div", { class: "actions" }, link),
    ),
  );
}

export function integrationsPage(ctx: PageContext): Promise<Node> {
  return deploymentFrame(ctx, "integrations", async (d) =>
    h("div", { class: "stack" }, mcpSection(ctx, d), await webhooksSection(ctx, d.id), exportSection(d)),
  );
}
