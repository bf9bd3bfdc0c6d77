import { h } from "../../shared/dom.ts";
import type { KeyOnce } from "../types.ts";

export function widgetSnippet(key: string): string {
  return `<script src="${location.origin}/widget.js" data-key="${key}" defer></script>`;
}

async function copyText(text: string, fallbackFrom: HTMLInputElement | HTMLTextAreaElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    fallbackFrom.select();
    return document.execCommand("copy");
  }
}

function copyRow(label: string, value: string, multiline = false): HTMLElement {
  const input = multiline
    ? h("textarea", { class: "mono", readOnly: true, rows: 2, value, "aria-label": label })
    : h("input", { class: "mono", readOnly: true, value, "aria-label": label });
  const button = h("button", { class: "btn btn-sm", type: "button" }, "Copy");
  button.addEventListener("click", async () => {
    button.textContent = (await copyText(value, input)) ? "Copied ✓" : "Select and copy";
    setTimeout(() => {
      button.textContent = "Copy";
    }, 2500);
  });
  return h("div", { class: "copy-row" }, input, button);
}

/** The one time a key is visible: a warning, the key with a copy button, and the embed snippet with it. */
export function keyOncePanel(k: KeyOnce): HTMLElement {
  const panel = h(
    "section",
    { class: "card key-once", "aria-live": "polite" },
    h("h2", null, "Your new API key"),
    h("div", { class: "alert alert-warn", role: "alert" }, h("strong", null, "Copy it now. "), k.warning),
    h("div", { class: "key-value", "data-testid": "api-key" }, copyRow("API key", k.api_key)),
    h("h3", null, "Put the chat widget on your site"),
    h("p", { class: "muted" }, "Paste this tag into your page, just before </body>:"),
    copyRow("Widget tag", widgetSnippet(k.api_key), true),
  );
  return panel;
}
