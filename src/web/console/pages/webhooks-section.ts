import { alertBox, badge, clear, dataTable, field, h } from "../../shared/dom.ts";
import { api, errorText } from "../api.ts";
import { onSubmit } from "../form-submit.ts";
import { dateTime } from "../format.ts";
import type { PageContext } from "../layout.ts";
import type { Delivery, DeliveryPage, WebhookEndpoint, WebhookList } from "../types.ts";

const statusBadge = (d: Delivery) =>
  d.status === "delivered"
    ? badge("Delivered", "ok")
    : d.status === "dead"
      ? badge("Gave up", "bad")
      : d.attempts > 0 && d.last_error
        ? badge("Retrying", "warn")
        : badge("Queued", "busy");

/** The deployment's webhook endpoints (add, test, pause, remove, show the secret) and the latest deliveries. */
export async function webhooksSection(ctx: PageContext, deploymentId: string): Promise<HTMLElement> {
  const base = `/deployments/${encodeURIComponent(deploymentId)}`;
  const list = h("div", { class: "stack" });
  const log = h("tbody");
  const status = h("div", { class: "form-status" });

  const act = (label: string, run: () => Promise<unknown>, tone: "btn" | "btn btn-ghost" = "btn") =>
    h(
      "button",
      {
        class: `${tone} btn-sm`,
        type: "button",
        onclick: async () => {
          clear(status);
          try {
            await run();
            await refresh();
          } catch (err) {
            clear(status, alertBox(errorText(err)));
          }
        },
      },
      label,
    );

  const endpointCard = (e: WebhookEndpoint) => {
    const secret = h("code", { class: "mono", hidden: true }, e.secret);
    return h(
      "div",
      { class: "card-row wrap", "data-testid": "webhook-endpoint" },
      h(
        "div",
        null,
        h("p", null, h("code", null, e.url), " ", e.enabled ? badge("On", "ok") : badge("Paused", "muted")),
        h("p", { class: "muted small" }, e.events.join(", ")),
        secret,
      ),
      h(
        "div",
        { class: "actions" },
        h("button", { class: "btn btn-ghost btn-sm", type: "button", onclick: () => (secret.hidden = !secret.hidden) }, "Secret"),
        act("Send test event", async () => {
          await api("POST", `${base}/webhooks/${e.id}/test`);
          ctx.toast("Test event queued: see the delivery log.", "success");
        }),
        act(e.enabled ? "Pause" : "Resume", () => api("PATCH", `${base}/webhooks/${e.id}`, { enabled: !e.enabled })),
        act(
          "Remove",
          async () => {
            if (confirm(`Remove ${e.url} and its delivery log?`)) await api("DELETE", `${base}/webhooks/${e.id}`);
          },
          "btn btn-ghost",
        ),
      ),
    );
  };

  const deliveryRow = (d: Delivery) =>
    h(
      "tr",
      null,
      h("td", null, dateTime(d.created_at)),
      h("td", null, h("code", null, d.type)),
      h("td", null, statusBadge(d), d.last_error ? h("p", { class: "muted small" }, d.last_error) : null),
      h("td", null, String(d.attempts), d.last_status ? ` · HTTP ${d.last_status}` : ""),
      h(
        "td",
        null,
        d.status === "delivered" || d.status === "dead"
          ? act("Send again", () => api("POST", `${base}/webhook-deliveries/${d.id}/redeliver`))
          : null,
      ),
    );

  let events: string[] = [];
  async function refresh(): Promise<void> {
    const [hooks, page] = await Promise.all([
      api<WebhookList>("GET", `${base}/webhooks`),
      api<DeliveryPage>("GET", `${base}/webhook-deliveries?limit=20`),
    ]);
    events = hooks.events;
    clear(list, hooks.data.length ? hooks.data.map(endpointCard) : h("p", { class: "muted" }, "No endpoints yet."));
    clear(log, page.data.length ? page.data.map(deliveryRow) : h("tr", null, h("td", { colspan: 5, class: "muted" }, "Nothing sent yet.")));
  }
  await refresh();

  const url = h("input", { type: "url", required: true, placeholder: "https://crm.example.com/hooks/docchat", class: "mono" });
  const boxes = events.map((ev) => h("input", { type: "checkbox", value: ev, checked: true }));
  const submit = h("button", { class: "btn btn-primary", type: "submit" }, "Add endpoint");
  const form = h(
    "form",
    { class: "stack" },
    field(
      "Endpoint URL",
      url,
      "A public http(s) address. Every delivery is signed (Standard Webhooks): verify it with the endpoint's secret.",
    ),
    h(
      "fieldset",
      { class: "field" },
      h("legend", { class: "label" }, "Events"),
      boxes.map((b) => h("label", { class: "check" }, b, b.value)),
    ),
    status,
    h("div", { class: "actions" }, submit),
  );
  form.addEventListener(
    "submit",
    onSubmit(submit, status, async () => {
      await api("POST", `${base}/webhooks`, { url: url.value, events: boxes.filter((b) => b.checked).map((b) => b.value) });
      url.value = "";
      await refresh();
      ctx.toast("Endpoint added.", "success");
    }),
  );
  return h(
    "section",
    { class: "card", "data-testid": "webhooks" },
    h("h2", null, "Webhooks"),
    list,
    form,
    h("h3", null, "Recent deliveries"),
    dataTable(["When", "Event", "Status", "Attempts", ""], log),
  );
}
