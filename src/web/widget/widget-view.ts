import { fill, type VisitorMessages } from "../../shared/visitor-messages.ts";
import { h } from "../shared/dom.ts";
import type { TurnEnd, WidgetClient, WidgetConfig } from "./widget-client.ts";
import { handoffForm } from "./widget-handoff.ts";

const CHAT_ICON = "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z";
// Drawn, not emoji: a host or phone without an emoji font would show empty boxes.
const THUMB_UP =
  "M2 21h4V9H2v12zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6V3a1.5 1.5 0 0 0-.4-1L13.2 1 7.6 6.6A2 2 0 0 0 7 8v11a2 2 0 0 0 2 2h9a2 2 0 0 0 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2z";
const THUMB_DOWN =
  "M22 3h-4v12h4V3zM2 14a2 2 0 0 0 2 2h6.3l-1 4.6v.4c0 .4.2.8.4 1l1.1 1 5.6-5.6c.4-.4.6-.9.6-1.4V5a2 2 0 0 0-2-2H6a2 2 0 0 0-1.8 1.2l-3 7.1c-.1.2-.2.5-.2.7v2z";

function icon(path: string): SVGElement {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  const p = document.createElementNS("http://www.w3.org/2000/svg", "path");
  p.setAttribute("d", path);
  svg.append(p);
  return svg;
}

/**
 * The chat button and panel. Every visitor-, document- and answer-derived string reaches the page through
 * text nodes only (the shared `h` helper), so markup in a question or a document is shown, never run.
 */
export function mountWidget(
  shadow: ShadowRoot,
  client: WidgetClient,
  config: WidgetConfig,
  store: { get(): string | null; set(id: string): void },
  t: VisitorMessages,
): void {
  const w = t.widget;
  let conversationId = store.get();
  let busy = false;
  const log = h("div", { class: "log", role: "log", "aria-live": "polite" });
  const input = h("textarea", { rows: 1, placeholder: w.ask, "aria-label": w.question, maxlength: 4000 });
  const send = h("button", { type: "submit", class: "send", "aria-label": w.send }, w.send);
  const suggestions = h("div", { class: "suggestions" });

  const scroll = () => {
    log.scrollTop = log.scrollHeight;
  };
  const bubble = (who: "user" | "bot", text: string) => {
    const el = h("div", { class: `msg ${who}` }, h("div", { class: "text" }, text));
    log.append(el);
    scroll();
    return el;
  };

  const rating = (chatLogId: number) => {
    const row = h("div", { class: "rate" }, h("span", null, w.wasHelpful));
    const vote = (value: 0 | 1, label: string, glyph: string) =>
      h(
        "button",
        {
          type: "button",
          class: "vote",
          "aria-label": label,
          title: label,
          onclick: async () => {
            try {
              await client.feedback(chatLogId, value);
              row.replaceChildren(h("span", { class: "thanks" }, value ? w.thanksFeedback : w.thanksReview));
            } catch (err) {
              row.append(h("span", { class: "form-error" }, (err as Error).message));
            }
          },
        },
        icon(glyph),
      );
    row.append(vote(1, w.helpful, THUMB_UP), vote(0, w.notHelpful, THUMB_DOWN));
    return row;
  };

  const finishTurn = (msg: HTMLElement, end: TurnEnd) => {
    if (end.conversationId) {
      conversationId = end.conversationId;
      store.set(end.conversationId);
    }
    // the owner may let visitors open what was cited: the page (or row) itself, by a short-lived link
    const label = (c: TurnEnd["citations"][number]) =>
      `${c.source}${c.page ? (c.pageEnd && c.pageEnd > c.page ? `, pp. ${c.page}–${c.pageEnd}` : `, p. ${c.page}`) : c.row ? `, row ${c.row}` : ""}`;
    if (end.citations.length)
      msg.append(
        h(
          "div",
          { class: "sources" },
          h("span", { class: "sources-label" }, w.sources),
          end.citations.map((c) =>
            h("a", { class: "source", href: c.url, target: "_blank", rel: "noopener noreferrer", title: "Open the cited page" }, label(c)),
          ),
        ),
      );
    else if (end.sources.length)
      msg.append(
        h(
          "div",
          { class: "sources" },
          h("span", { class: "sources-label" }, w.sources),
          end.sources.map((s) => h("span", { class: "source" }, s)),
        ),
      );
    if (end.chatLogId) msg.append(rating(end.chatLogId));
    if (end.refused && config.handoff_enabled)
      msg.append(handoffForm(client, { conversationId, chatLogId: end.chatLogId }, t, { mail: config.handoff_mail !== false }));
    scroll();
  };

  const ask = (question: string) => {
    const q = question.trim();
    if (!q || busy) return;
    busy = true;
    send.disabled = true;
    suggestions.hidden = true;
    bubble("user", q);
    const msg = bubble("bot", "");
    msg.classList.add("streaming");
    const text = msg.querySelector(".text") as HTMLElement;
    const done = () => {
      busy = false;
      send.disabled = false;
      msg.classList.remove("streaming");
      input.focus();
    };
    client.ask(q, conversationId, {
      onDelta: (t) => {
        text.append(t);
        scroll();
      },
      onDone: (end) => {
        done();
        finishTurn(msg, end);
      },
      onError: (message) => {
        done();
        msg.classList.add("error");
        text.textContent = message;
      },
    });
  };

  for (const s of config.starter_questions) suggestions.append(h("button", { type: "button", class: "chip", onclick: () => ask(s) }, s));
  for (const p of config.qa_pairs) {
    suggestions.append(
      h(
        "button",
        {
          type: "button",
          class: "chip qa",
          onclick: () => {
            bubble("user", p.question);
            bubble("bot", p.answer);
          },
        },
        p.question,
      ),
    );
  }

  const form = h(
    "form",
    {
      class: "compose",
      onsubmit: (e: Event) => {
        e.preventDefault();
        const q = input.value;
        input.value = "";
        ask(q);
      },
    },
    input,
    send,
  );
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      form.requestSubmit();
    }
  });

  const panel = h(
    "div",
    { class: "panel", role: "dialog", "aria-label": config.name, hidden: true },
    h(
      "div",
      { class: "head" },
      h("span", { class: "title" }, config.name),
      h("button", { type: "button", class: "close", "aria-label": w.close, onclick: () => toggle(false) }, "×"),
    ),
    log,
    suggestions,
    form,
    h("div", { class: "foot" }, w.footer),
  );
  const launcher = h(
    "button",
    { type: "button", class: "launcher", "aria-label": fill(w.chatWith, { name: config.name }), "aria-expanded": "false" },
    icon(CHAT_ICON),
  );
  const toggle = (open: boolean) => {
    panel.hidden = !open;
    launcher.setAttribute("aria-expanded", String(open));
    launcher.classList.toggle("open", open);
    if (open) input.focus();
  };
  launcher.addEventListener("click", () => toggle(launcher.getAttribute("aria-expanded") !== "true"));
  // Escape closes the panel and gives focus back to the button that opened it
  panel.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    e.stopPropagation();
    toggle(false);
    launcher.focus();
  });
  bubble("bot", fill(w.greeting, { name: config.name }));
  shadow.append(panel, launcher);
}
