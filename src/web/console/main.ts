import { alertBox, clear, h } from "../shared/dom.ts";
import { api, errorText, whenSignedOut } from "./api.ts";
import { type PageContext, type PageRender, topBar } from "./layout.ts";
import { accountPage } from "./pages/account.page.ts";
import { chatsPage } from "./pages/chats.page.ts";
import { conversationPage } from "./pages/conversation.page.ts";
import { correctionsPage } from "./pages/corrections.page.ts";
import { deploymentsPage } from "./pages/deployments.page.ts";
import { documentsPage } from "./pages/documents.page.ts";
import { gapsPage } from "./pages/gaps.page.ts";
import { integrationsPage } from "./pages/integrations.page.ts";
import { keyPage } from "./pages/key.page.ts";
import { leadsPage } from "./pages/leads.page.ts";
import { reportsPage } from "./pages/reports.page.ts";
import { settingsPage } from "./pages/settings.page.ts";
import { signInPage } from "./pages/sign-in.page.ts";
import { testsPage } from "./pages/tests.page.ts";
import { matchRoute, type RouteName } from "./router.ts";
import type { Session } from "./types.ts";

const PAGES: Record<Exclude<RouteName, "sign-in">, [string, PageRender]> = {
  deployments: ["Deployments", deploymentsPage],
  settings: ["Settings", settingsPage],
  documents: ["Documents", documentsPage],
  key: ["Key", keyPage],
  corrections: ["Corrections", correctionsPage],
  leads: ["Leads", leadsPage],
  reports: ["Reports", reportsPage],
  chats: ["Chat logs", chatsPage],
  conversation: ["Conversation", conversationPage],
  gaps: ["Content gaps", gapsPage],
  tests: ["Test questions", testsPage],
  integrations: ["Integrations", integrationsPage],
  account: ["Account", accountPage],
  "not-found": [
    "Not found",
    () =>
      h(
        "div",
        { class: "empty" },
        h("p", { class: "empty-title" }, "Page not found"),
        h("a", { href: "#/deployments" }, "Back to deployments"),
      ),
  ],
};

const root = document.getElementById("app") as HTMLElement;
// Messages sit in the page's flow under the top bar, so they never cover what the owner is reading.
const toasts = h("div", { class: "toasts", "aria-live": "polite" });
let session: Session | null = null;
let checked = false;
let generation = 0;
let leave: (() => void)[] = [];

/** One message at a time (a new one replaces the last), dismissable, gone by itself after a few seconds. */
function toast(message: string, tone: "success" | "error" | "info" = "info"): void {
  const t = alertBox(message, tone);
  t.classList.add("toast");
  t.append(h("button", { class: "toast-close", type: "button", "aria-label": "Dismiss message", onclick: () => t.remove() }, "×"));
  toasts.replaceChildren(t);
  setTimeout(() => t.remove(), 6000);
}

async function signOut(): Promise<void> {
  await api("DELETE", "/session").catch(() => {});
  session = null;
  location.hash = "#/sign-in";
}

async function render(): Promise<void> {
  const mine = ++generation;
  for (const fn of leave) fn();
  leave = [];
  const route = matchRoute(location.hash);
  if (!checked) {
    session = await api<Session>("GET", "/session").catch(() => null);
    checked = true;
  }
  if (mine !== generation) return;
  if (!session) {
    if (route.name !== "sign-in") {
      location.hash = "#/sign-in";
      return;
    }
    document.title = "Sign in · docchat";
    clear(
      root,
      toasts,
      signInPage((s) => {
        session = s;
        location.hash = "#/deployments";
      }),
    );
    return;
  }
  if (route.name === "sign-in") {
    location.hash = "#/deployments";
    return;
  }
  const [title, page] = PAGES[route.name];
  document.title = `${title} · docchat`;
  const main = h(
    "main",
    { class: "content", "aria-busy": "true" },
    h("p", { class: "loading" }, h("span", { class: "spinner" }), " Loading…"),
  );
  clear(
    root,
    topBar(session, route.name, () => void signOut()),
    toasts,
    main,
  );
  const ctx: PageContext = {
    params: route.params,
    session,
    go: (hash) => {
      location.hash = hash;
    },
    onLeave: (fn) => leave.push(fn),
    isCurrent: () => mine === generation,
    rerender: () => void render(),
    toast,
  };
  try {
    const view = await page(ctx);
    if (mine === generation) clear(main, view);
  } catch (err) {
    if (mine === generation) clear(main, alertBox(errorText(err)), h("p", null, h("a", { href: "#/deployments" }, "Back to deployments")));
  }
  main.removeAttribute("aria-busy");
}

whenSignedOut(() => {
  if (!session) return;
  session = null;
  toast("Your session has ended. Please sign in again.", "info");
  location.hash = "#/sign-in";
});
window.addEventListener("hashchange", () => void render());
void render();
