import { alertBox, badge, clear, h } from "../../shared/dom.ts";
import { api, errorText } from "../api.ts";
import { deploymentFrame, type PageContext } from "../layout.ts";
import type { Deployment, KeyOnce } from "../types.ts";
import { keyOncePanel } from "./key-once.ts";

function body(ctx: PageContext, d: Deployment): Node {
  const path = `/deployments/${encodeURIComponent(d.id)}/key`;
  const status = h("div");
  const once = h("div");
  const regenerate = h("button", { class: "btn btn-primary", type: "button" }, d.key_prefix ? "Regenerate key" : "Create key");
  regenerate.addEventListener("click", async () => {
    if (d.key_prefix && !confirm("Regenerate the key? The current key stops working immediately, on every site that uses it.")) return;
    regenerate.disabled = true;
    clear(status);
    try {
      const k = await api<KeyOnce>("POST", path);
      clear(once, keyOncePanel(k));
      d.key_prefix = k.key_prefix;
      d.key_disabled = false;
      clear(state, stateLine());
    } catch (err) {
      clear(status, alertBox(errorText(err)));
    } finally {
      regenerate.disabled = false;
    }
  });
  const toggle = h("button", { class: "btn", type: "button" });
  toggle.addEventListener("click", async () => {
    clear(status);
    try {
      const r = await api<{ key_prefix: string | null; key_disabled: boolean | null }>("PATCH", path, { disabled: !d.key_disabled });
      d.key_disabled = r.key_disabled;
      // A disabled key must not stay on screen with "Copy it now" next to it.
      if (r.key_disabled) clear(once);
      clear(state, stateLine());
      ctx.toast(r.key_disabled ? "Key disabled: calls with it now fail with 401." : "Key enabled again.", "success");
    } catch (err) {
      clear(status, alertBox(errorText(err)));
    }
  });
  const stateLine = () => {
    toggle.textContent = d.key_disabled ? "Enable key" : "Disable key";
    toggle.hidden = !d.key_prefix;
    regenerate.textContent = d.key_prefix ? "Regenerate key" : "Create key";
    return d.key_prefix
      ? h(
          "p",
          null,
          "Current key: ",
          h("code", { "data-testid": "key-prefix" }, `${d.key_prefix}…`),
          " ",
          d.key_disabled ? badge("Disabled", "bad") : badge("Active", "ok"),
        )
      : h("p", null, "This deployment has no key. Create one to call the API or embed the widget.");
  };
  const state = h("div", null, stateLine());
  return h(
    "div",
    { class: "stack" },
    once,
    h(
      "section",
      { class: "card" },
      h("h2", null, "API key"),
      state,
      h(
        "p",
        { class: "muted" },
        "Keys are stored only as a hash: after creation just the first characters can be shown. A lost key cannot be recovered — regenerate it and update your site.",
      ),
      status,
      h("div", { class: "actions" }, regenerate, toggle),
    ),
  );
}

export function keyPage(ctx: PageContext): Promise<Node> {
  return deploymentFrame(ctx, "key", (d) => body(ctx, d));
}
