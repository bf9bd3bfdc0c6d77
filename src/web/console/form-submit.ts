import { alertBox, type Child, clear, h } from "../shared/dom.ts";
import { errorText } from "./api.ts";

/**
 * The console's one submit handler: the button is disabled while `action` runs, and a failure (an API error or
 * an Error thrown by a local check) is shown in `status` from its message.
 */
export function onSubmit(button: HTMLButtonElement, status: Element, action: () => Promise<void>, onError?: () => void) {
  return async (e: Event) => {
    e.preventDefault();
    button.disabled = true;
    clear(status);
    try {
      await action();
    } catch (err) {
      clear(status, alertBox(errorText(err)));
      onError?.();
    } finally {
      button.disabled = false;
    }
  };
}

export interface ActionFormOptions {
  /** the form's class ("card", "turn-action", …) */
  class: string;
  /** the submit button's text, and its class when it is not the primary button */
  submit: string;
  submitClass?: string;
  /** a card's heading, shown above the status line */
  heading?: string;
  /** more attributes of the form (data-testid, …) */
  attrs?: Record<string, string>;
  action: () => Promise<void>;
}

/** The console's usual form: heading, status line, the fields, then the submit button, submitting through onSubmit. */
export function actionForm(opts: ActionFormOptions, ...fields: Child[]): HTMLFormElement {
  const status = h("div");
  const submit = h("button", { class: opts.submitClass ?? "btn btn-primary", type: "submit" }, opts.submit);
  return h(
    "form",
    { class: opts.class, ...opts.attrs, onsubmit: onSubmit(submit, status, opts.action) },
    opts.heading ? h("h2", null, opts.heading) : null,
    status,
    ...fields,
    submit,
  );
}

/** A turn's "write the answer visitors get" form: one answer box and its save button, under the turn it answers. */
export function turnAnswerForm(opts: { label: string; placeholder: string; submit: string; save: (answer: string) => Promise<void> }) {
  const answer = h("textarea", { rows: 3, maxlength: 8000, "aria-label": opts.label, placeholder: opts.placeholder });
  const action = () => opts.save(answer.value);
  return actionForm({ class: "turn-action", submit: opts.submit, submitClass: "btn btn-primary btn-sm", action }, answer);
}
