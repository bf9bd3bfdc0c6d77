import { h } from "../shared/dom.ts";
import { api } from "./api.ts";
import { deploymentHref, type RouteName } from "./router.ts";
import type { Deployment, Session } from "./types.ts";

export interface PageContext {
  params: Record<string, string>;
  session: Session;
  go(hash: string): void;
  /** runs when the owner leaves the page (stops polling) */
  onLeave(fn: () => void): void;
  /** false once the owner has left the page */
  isCurrent(): boolean;
  rerender(): void;
  /** a short message that survives re-rendering */
  toast(message: string, tone?: "success" | "error" | "info"): void;
}

export type PageRender = (ctx: PageContext) => Promise<Node> | Node;

export function topBar(session: Session, route: RouteName, signOut: () => void): HTMLElement {
  const link = (href: string, text: string, active: boolean) =>
    h("a", { href, class: active ? "active" : "", "aria-current": active ? "page" : false }, text);
  return h(
    "header",
    { class: "topbar" },
    h("a", { class: "brand", href: "#/deployments" }, h("span", { class: "brand-mark", "aria-hidden": "true" }, "d"), "docchat"),
    h(
      "nav",
      { class: "topnav", "aria-label": "Main" },
      link("#/deployments", "Deployments", route !== "account"),
      link("#/account", "Account", route === "account"),
    ),
    h(
      "div",
      { class: "who" },
      h("span", { class: "who-email" }, session.account.email),
      h("button", { class: "btn btn-ghost btn-sm", type: "button", onclick: signOut }, "Sign out"),
    ),
  );
}

const TABS: [RouteName, string, string | undefined][] = [
  ["settings", "Settings", undefined],
  ["documents", "Documents", "documents"],
  ["key", "Key", "key"],
  ["chats", "Chat logs", "chats"],
  ["gaps", "Content gaps", "gaps"],
  ["tests", "Test questions", "tests"],
  ["corrections", "Corrections", "corrections"],
  ["leads", "Leads", "leads"],
  ["reports", "Reports", "reports"],
  ["integrations", "Integrations", "integrations"],
];

/** Fetches the deployment and frames a page about it with its name, state and tabs. */
export async function deploymentFrame(ctx: PageContext, tab: RouteName, body: (d: Deployment) => Promise<Node> | Node): Promise<Node> {
  const id = ctx.params.id ?? "";
  const d = await api<Deployment>("GET", `/deployments/${encodeURIComponent(id)}`);
  const state = d.published
    ? h("span", { class: "badge badge-ok" }, "Published")
    : h("span", { class: "badge badge-muted" }, "Not published");
  return h(
    "div",
    null,
    h("p", { class: "crumbs" }, h("a", { href: "#/deployments" }, "Deployments"), " / "),
    h("div", { class: "page-head" }, h("h1", null, d.name), state),
    h(
      "nav",
      { class: "tabs", "aria-label": "Deployment" },
      TABS.map(([name, label, path]) =>
        h(
          "a",
          {
            href: deploymentHref(d.id, path),
            class: name === tab || (name === "chats" && tab === "conversation") ? "active" : "",
            "aria-current": name === tab ? "page" : false,
          },
          label,
        ),
      ),
    ),
    await body(d),
  );
}
