export type RouteName =
  | "sign-in"
  | "deployments"
  | "settings"
  | "documents"
  | "key"
  | "corrections"
  | "leads"
  | "reports"
  | "chats"
  | "conversation"
  | "gaps"
  | "tests"
  | "integrations"
  | "account"
  | "not-found";

export interface Route {
  name: RouteName;
  params: Record<string, string>;
}

const TABS = new Set(["documents", "key", "corrections", "leads", "reports", "chats", "gaps", "tests", "integrations"]);

/** Hash routes (#/deployments/dep_x/documents): the server serves one page, the hash picks the screen. */
export function matchRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  const [a, b, c, d] = parts;
  if (!a) return { name: "deployments", params: {} };
  if (a === "sign-in" && !b) return { name: "sign-in", params: {} };
  if (a === "account" && !b) return { name: "account", params: {} };
  if (a === "deployments") {
    if (!b) return { name: "deployments", params: {} };
    if (!c) return { name: "settings", params: { id: b } };
    if (TABS.has(c) && parts.length === 3) return { name: c as RouteName, params: { id: b } };
    if (c === "chats" && d && parts.length === 4) return { name: "conversation", params: { id: b, conversationId: d } };
  }
  return { name: "not-found", params: {} };
}

export const deploymentHref = (id: string, tab?: string) => `#/deployments/${encodeURIComponent(id)}${tab ? `/${tab}` : ""}`;
