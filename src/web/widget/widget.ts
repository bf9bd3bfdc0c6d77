import { visitorMessages } from "../../shared/visitor-messages.ts";
import css from "./widget.css" with { type: "text" };
import { createWidgetClient } from "./widget-client.ts";
import { mountWidget } from "./widget-view.ts";

/**
 * `<script src="{base}/widget.js" data-key="…" defer></script>`: finds its own tag, reads the key, and
 * mounts a chat button and panel in a shadow root so the host page's CSS cannot reach them. Its own words are in
 * the page's language (`data-lang="de"`, else `<html lang>`, else the browser's), when docchat speaks it.
 */
function ownScript(): HTMLScriptElement | null {
  const current = document.currentScript;
  if (current instanceof HTMLScriptElement && current.dataset.key) return current;
  return document.querySelector<HTMLScriptElement>('script[src*="/widget.js"][data-key]');
}

function sessionStore(key: string) {
  const name = `docchat:${key.slice(0, 12)}:conversation`;
  return {
    get: () => {
      try {
        return sessionStorage.getItem(name);
      } catch {
        return null;
      }
    },
    set: (id: string) => {
      try {
        sessionStorage.setItem(name, id);
      } catch {}
    },
  };
}

async function start(script: HTMLScriptElement): Promise<void> {
  const key = script.dataset.key ?? "";
  const base = new URL(script.src, location.href).origin;
  // the page says which language it is in (data-lang on the tag, else <html lang>), else the browser does
  const t = visitorMessages(script.dataset.lang || document.documentElement.lang || navigator.language);
  const client = createWidgetClient(base, key, t);
  let config: Awaited<ReturnType<typeof client.config>>;
  try {
    config = await client.config();
  } catch (e) {
    console.warn(`docchat widget: ${(e as Error).message}`);
    return;
  }
  const host = document.createElement("div");
  host.id = "docchat-widget";
  const shadow = host.attachShadow({ mode: "open" });
  const style = document.createElement("style");
  style.textContent = css;
  shadow.append(style);
  mountWidget(shadow, client, config, sessionStore(key), t);
  document.body.append(host);
}

const script = ownScript();
if (script && !document.getElementById("docchat-widget")) {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => void start(script), { once: true });
  else void start(script);
}
