import { alertBox, badge, clear, emptyState, h } from "../../shared/dom.ts";
import { api, errorText } from "../api.ts";
import { onSubmit } from "../form-submit.ts";
import { dateTime } from "../format.ts";
import { deploymentFrame, type PageContext } from "../layout.ts";
import type { Corrections } from "../types.ts";

type Item = Corrections["open"][number];

function openItem(ctx: PageContext, path: string, item: Item): HTMLElement {
  const answer = h("textarea", {
    rows: 3,
    value: item.correction?.answer ?? "",
    placeholder: "Write the answer visitors should get instead",
    "aria-label": "Replacement answer",
    maxlength: 8000,
  });
  const status = h("div");
  const save = h(
    "button",
    { class: "btn btn-primary btn-sm", type: "submit" },
    item.correction?.active ? "Update correction" : "Save correction",
  );
  const sources = item.sources.length
    ? item.sources.map((s) => h("span", { class: "chip" }, s))
    : [h("span", { class: "muted" }, item.refused ? "none (refused)" : "none")];
  return h(
    "form",
    {
      class: "card correction",
      "data-chat-log": String(item.chat_log_id),
      onsubmit: onSubmit(save, status, async () => {
        await api("PUT", `${path}/${item.chat_log_id}`, { answer: answer.value });
        ctx.toast("Correction saved. Visitors asking this question now get your answer.", "success");
        ctx.rerender();
      }),
    },
    h(
      "div",
      { class: "card-row" },
      h("p", { class: "muted small" }, "Rated not helpful · ", dateTime(item.rated_at ?? item.created_at)),
      item.correction?.active ? badge(`Corrected · served ${item.correction.served_count}×`, "ok") : badge("Needs a correction", "warn"),
    ),
    h("p", { class: "q" }, h("span", { class: "label" }, "Question"), h("span", { class: "question-text" }, item.question)),
    h("p", { class: "a" }, h("span", { class: "label" }, "Answer given"), h("span", { class: "answer-text" }, item.answer)),
    h("p", { class: "sources" }, h("span", { class: "label" }, "Sources"), ...sources),
    status,
    answer,
    h("div", { class: "actions" }, save, item.correction?.active ? outOfServiceButton(ctx, path, item.chat_log_id, status) : null),
  );
}

const OUT_OF_SERVICE = "Correction taken out of service: visitors asking this question get the documents' answer again.";

/** DELETE takes a correction out of service; the message stays in the page's flow and the list is redrawn. */
function outOfServiceButton(ctx: PageContext, path: string, chatLogId: number, status: Element): HTMLButtonElement {
  const button = h("button", { class: "btn btn-sm", type: "button" }, "Take out of service");
  button.addEventListener("click", async () => {
    button.disabled = true;
    clear(status);
    try {
      await api("DELETE", `${path}/${chatLogId}`);
      ctx.toast(OUT_OF_SERVICE, "success");
      ctx.rerender();
    } catch (err) {
      clear(status, alertBox(errorText(err)));
      button.disabled = false;
    }
  });
  return button;
}

function backInServiceButton(ctx: PageContext, path: string, c: Corrections["corrections"][number], status: Element): HTMLButtonElement {
  const button = h("button", { class: "btn btn-sm", type: "button" }, "Put back in service");
  button.addEventListener("click", async () => {
    button.disabled = true;
    clear(status);
    try {
      await api("PUT", `${path}/${c.chat_log_id}`, { answer: c.answer });
      ctx.toast("Correction back in service: visitors asking this question get your answer again.", "success");
      ctx.rerender();
    } catch (err) {
      clear(status, alertBox(errorText(err)));
      button.disabled = false;
    }
  });
  return button;
}

function servedTable(ctx: PageContext, path: string, rows: Corrections["corrections"]): HTMLElement {
  if (!rows.length) return emptyState("No corrections yet", "When you correct an answer, it is listed here with how often it was served.");
  const status = h("div");
  return h(
    "div",
    { class: "table-wrap" },
    status,
    h(
      "table",
      { class: "table" },
      h(
        "thead",
        null,
        h("tr", null, h("th", null, "Question"), h("th", null, "Your answer"), h("th", null, "Served"), h("th", null, "State")),
      ),
      h(
        "tbody",
        null,
        rows.map((c) =>
          h(
            "tr",
            { "data-chat-log": String(c.chat_log_id) },
            h("td", { class: "wrap" }, c.question),
            h("td", { class: "wrap" }, c.answer),
            h("td", { class: "num" }, String(c.served_count)),
            h(
              "td",
              { class: "state-cell" },
              c.active ? badge("In service", "ok") : badge("Not in service", "muted"),
              c.active ? outOfServiceButton(ctx, path, c.chat_log_id, status) : backInServiceButton(ctx, path, c, status),
            ),
          ),
        ),
      ),
    ),
  );
}

export function correctionsPage(ctx: PageContext): Promise<Node> {
  return deploymentFrame(ctx, "corrections", async (d) => {
    const path = `/deployments/${encodeURIComponent(d.id)}/corrections`;
    const r = await api<Corrections>("GET", path);
    const open = r.open.length
      ? h(
          "div",
          { class: "stack" },
          r.open.map((item) => openItem(ctx, path, item)),
        )
      : emptyState(
          "Nothing to correct",
          "Answers that visitors rate as not helpful appear here. Write a better answer and it is served instead — free, even when the balance is empty.",
        );
    return h(
      "div",
      { class: "stack" },
      h("h2", null, "Answers rated not helpful"),
      open,
      h("section", { class: "card" }, h("h2", null, "Corrections in service"), servedTable(ctx, path, r.corrections)),
    );
  });
}
