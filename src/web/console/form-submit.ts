import { alertBox, clear } from "../shared/dom.ts";
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
