import type { DocumentDecoration } from "elysia";

type Schema = object;

/**
 * How a public route is documented in the OpenAPI document (public-openapi.ts builds it from the routes the
 * server registers, so a route cannot be left out or documented at a path it does not answer). The request
 * schemas are the ones the route validates with; the response shapes are public-schemas.ts's.
 */
export interface PublicDoc {
  tag: "Chat completions" | "Responses" | "Models" | "Documents" | "Widget" | "Native" | "MCP";
  summary: string;
  description?: string;
  body?: { json?: Schema; form?: Schema; multipart?: Schema };
  query?: Schema;
  ok: { status?: number; schema?: Schema; sse?: Schema; description?: string }[];
  errors: number[];
  /** MCP answers refusals as JSON-RPC errors, not in the API's error shape */
  jsonRpcErrors?: true;
}

const KEY = "x-docchat-public";

/** A route's `detail`: what Elysia shows of it, and the document's operation for it. */
export function publicDoc(doc: PublicDoc): DocumentDecoration {
  const detail: DocumentDecoration & { [KEY]: PublicDoc } = { summary: doc.summary, tags: [doc.tag], [KEY]: doc };
  if (doc.description) detail.description = doc.description;
  return detail;
}

export function publicDocOf(detail: unknown): PublicDoc | undefined {
  return (detail as Record<string, PublicDoc | undefined> | undefined)?.[KEY];
}

/** Chat endpoints' error statuses. */
export const CHAT_ERRORS = [400, 401, 402, 403, 404, 429, 503];
