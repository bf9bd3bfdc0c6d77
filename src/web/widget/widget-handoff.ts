import { fill, type VisitorMessages } from "../../shared/visitor-messages.ts";
import { h } from "../shared/dom.ts";
import type { WidgetClient } from "./widget-client.ts";

/** Offered under a refused answer when the deployment allows handoff: leave an email for a person. */
export function handoffForm(
  client: WidgetClient,
  turn: { conversationId: string | null; chatLogId: number | null },
  t: VisitorMessages,
  opts: { mail: boolean } = { mail: true },
): HTMLElement {
  const m = t.handoff;
  const email = h("input", {
    type: "email",
    name: "email",
    required: true,
    placeholder: "you@example.com",
    "aria-label": m.email,
    maxlength: 254,
  });
  const name = h("input", { type: "text", name: "name", placeholder: m.name, "aria-label": m.nameLabel, maxlength: 200 });
  const message = h("textarea", {
    name: "message",
    rows: 2,
    placeholder: m.message,
    "aria-label": m.messageLabel,
    maxlength: 4000,
  });
  const status = h("p", { class: "form-error", role: "alert" });
  // not "Send": the composer below has that button, and two identical ones confuse (and read the same to a screen reader)
  const submit = h("button", { type: "submit", class: "primary" }, opts.mail ? m.sendMail : m.sendRequest);
  const form: HTMLFormElement = h(
    "form",
    {
      class: "handoff",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        status.textContent = "";
        submit.disabled = true;
        try {
          await client.handoff({
            email: email.value.trim(),
            name: name.value.trim(),
            message: message.value.trim(),
            ...(turn.conversationId ? { conversation_id: turn.conversationId } : {}),
            ...(turn.chatLogId ? { chat_log_id: turn.chatLogId } : {}),
          });
          const done = opts.mail ? fill(m.thanks, { email: email.value.trim() }) : m.thanksRequest;
          form.replaceWith(h("p", { class: "handoff-done", role: "status" }, done));
        } catch (err) {
          status.textContent = (err as Error).message;
          submit.disabled = false;
        }
      },
    },
    h("p", { class: "handoff-title" }, opts.mail ? m.title : m.titleRequest),
    email,
    name,
    message,
    status,
    submit,
  );
  return form;
}
