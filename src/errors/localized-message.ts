import { fromAcceptLanguage, isMessageLang, type VisitorMessages, visitorMessages } from "../shared/visitor-messages.ts";
import type { AppError } from "./app-error.ts";
import { type ErrorCode, errorCatalogue } from "./catalogue.ts";

/** The catalogue messages a visitor may read, and their translations (shared/visitor-messages.ts). */
const VISITOR: Partial<Record<ErrorCode, keyof VisitorMessages>> = {
  not_published: "notAvailable",
  account_disabled: "notAvailable",
  no_tokens: "temporarilyUnavailable",
  backend_down: "temporarilyUnavailable",
  overloaded: "busy",
  rate_limited: "rateLimited",
  not_trained: "notTrained",
  ip_restricted: "ipRestricted",
  internal_error: "somethingWentWrong",
  handoff_disabled: "handoffDisabled",
  handoff_not_offered: "handoffNotOffered",
};

/**
 * An error's message in the visitor's language. Only the catalogue's own wording is translated: a message written
 * for one case (a validation error naming its field) stays as it is. `message` is documented as unstable wording;
 * `code` is what clients branch on, and it never changes.
 */
export function localizedMessage(e: AppError, lang: string | null | undefined): string {
  const key = VISITOR[e.code];
  if (!lang || !key || e.message !== errorCatalogue[e.code].message) return e.message;
  const text = visitorMessages(lang)[key];
  return typeof text === "string" ? text : e.message;
}

/** The language a request asks for: a `lang` query parameter (the native stream's), else Accept-Language. */
export function requestLanguage(request: Request): string | null {
  const q = new URL(request.url).searchParams.get("lang")?.trim().toLowerCase().split(/[-_]/)[0];
  if (isMessageLang(q)) return q;
  return fromAcceptLanguage(request.headers.get("accept-language"));
}
