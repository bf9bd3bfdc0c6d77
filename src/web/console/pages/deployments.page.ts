import { alertBox, badge, clear, emptyState, field, h } from "../../shared/dom.ts";
import { api } from "../api.ts";
import { actionForm } from "../form-submit.ts";
import { dateTime } from "../format.ts";
import type { PageContext } from "../layout.ts";
import { deploymentHref } from "../router.ts";
import type { Deployment, KeyOnce } from "../types.ts";
import { keyOncePanel } from "./key-once.ts";
import { trainingBadge } from "./status.ts";

function card(d: Deployment): HTMLElement {
  const docs = Object.values(d.documents).reduce((a, b) => a + b, 0);
  return h(
    "a",
    { class: "card deployment-card", href: deploymentHref(d.id) },
    h("div", { class: "card-row" }, h("h2", null, d.name), d.published ? badge("Published", "ok") : badge("Not published", "muted")),
    h(
      "p",
      { class: "meta" },
      d.kind === "private_gpt" ? "Private GPT" : `${docs} document${docs === 1 ? "" : "s"}`,
      " · ",
      trainingBadge(d.training_status),
      " · key ",
      h("code", null, d.key_prefix ? `${d.key_prefix}…` : "none"),
      d.key_disabled ? " (disabled)" : "",
    ),
    h("p", { class: "meta muted" }, "Created ", dateTime(d.created_at)),
  );
}

function createForm(onCreated: (d: Deployment, k: KeyOnce) => void): HTMLFormElement {
  const name = h("input", { type: "text", name: "name", required: true, maxlength: 200, placeholder: "e.g. Help centre assistant" });
  const kind = h(
    "select",
    { name: "kind" },
    h("option", { value: "docs" }, "Documents: answers from uploaded files"),
    h("option", { value: "private_gpt" }, "Private GPT: persona only, no documents"),
  );
  return actionForm(
    {
      class: "card",
      heading: "New deployment",
      submit: "Create deployment",
      action: async () => {
        const r = await api<{ deployment: Deployment } & KeyOnce>("POST", "/deployments", { name: name.value, kind: kind.value });
        onCreated(r.deployment, r);
      },
    },
    h("div", { class: "grid-2" }, field("Name", name, "Visitors see this name in the chat widget."), field("Kind", kind)),
  );
}

function listOf(data: Deployment[]): HTMLElement {
  return data.length
    ? h("div", { class: "cards" }, data.map(card))
    : emptyState(
        "No deployments yet",
        "A deployment is one assistant: its documents, persona and key. Create your first one below, upload documents, then put the widget on your site.",
      );
}

export async function deploymentsPage(_ctx: PageContext): Promise<Node> {
  const { data } = await api<{ data: Deployment[] }>("GET", "/deployments");
  const top = h("div");
  const list = h("div", null, listOf(data));
  const form = createForm((d, k) => {
    form.reset();
    clear(
      top,
      h(
        "div",
        { class: "stack" },
        alertBox(`“${d.name}” was created. It is not published yet: upload documents, then publish it in Settings.`, "success"),
        keyOncePanel(k),
        h("p", null, h("a", { class: "btn btn-primary", href: deploymentHref(d.id, "documents") }, "Continue: upload documents →")),
      ),
    );
    clear(list, listOf([...data, d]));
    data.push(d);
    top.scrollIntoView({ behavior: "smooth" });
  });
  return h("div", { class: "stack" }, h("div", { class: "page-head" }, h("h1", null, "Deployments")), top, list, form);
}
