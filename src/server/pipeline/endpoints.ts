/**
 * The spec's Limits table, per endpoint per minute, and which gated endpoint a request path belongs to.
 * `trained`: the deployment must have completed training (chat endpoints only; listing the model or
 * pushing documents works before that).
 */
export const endpoints = {
  "v1.models": { limit: 120, trained: false },
  "v1.chat": { limit: 60, trained: true },
  "v1.chat-with-sources": { limit: 60, trained: true },
  "v1.chat-contextual": { limit: 60, trained: true },
  /** the OpenAI Responses API: its own bucket, the same 60/min as each chat endpoint */
  "v1.responses": { limit: 60, trained: true },
  "v1.widget.config": { limit: 120, trained: false },
  "v1.widget.feedback": { limit: 120, trained: false },
  "v1.widget.handoff": { limit: 10, trained: false },
  "v1.documents": { limit: 20, trained: false },
  "native.chat": { limit: 60, trained: true },
  "native.stream": { limit: 60, trained: true },
  "native.faq": { limit: 120, trained: false },
  "native.feedback": { limit: 120, trained: false },
  /**
   * The MCP server (Streamable HTTP): every request counts, like a chat request; listing tools works before
   * training, the tools themselves say `not_trained`.
   */
  mcp: { limit: 60, trained: false },
} as const;

export type EndpointName = keyof typeof endpoints;

const byPath: Record<string, EndpointName> = {
  "/api/v1/models": "v1.models",
  "/api/v1/chat/completions": "v1.chat",
  "/api/v1/chat/completions-with-sources": "v1.chat-with-sources",
  "/api/v1/chat/completions-contextual": "v1.chat-contextual",
  "/api/v1/responses": "v1.responses",
  "/api/v1/widget/config": "v1.widget.config",
  "/api/v1/widget/feedback": "v1.widget.feedback",
  "/api/v1/widget/handoff": "v1.widget.handoff",
  "/api/v1/documents": "v1.documents",
  "/api/chat": "native.chat",
  "/api/stream": "native.stream",
  "/api/faq/details": "native.faq",
  "/api/feedback": "native.feedback",
  "/api/v1/mcp": "mcp",
};

const pathOfName = new Map<EndpointName, string>(Object.entries(byPath).map(([p, n]) => [n, p]));

/** The documented path of a gated endpoint, e.g. a metrics label for a request refused before routing. */
export function endpointPath(name: EndpointName): string {
  return pathOfName.get(name) ?? name;
}

/** Trailing slashes are optional (the native family is documented with them). */
export function endpointFor(pathname: string): EndpointName | undefined {
  const exact = byPath[pathname];
  if (exact) return exact;
  const p = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  // Document status, listing and removal share the push endpoint's limit.
  if (p.startsWith("/api/v1/documents/")) return "v1.documents";
  return byPath[p];
}

export function isNative(name: EndpointName): boolean {
  return name.startsWith("native.");
}
