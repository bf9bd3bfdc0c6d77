import { Elysia } from "elysia";
import type { Services } from "../../app.ts";
import { appError, isAppError, requestLanguage } from "../../errors/index.ts";
import { redact } from "../../log.ts";
import { toErrorResponse } from "./error-response.ts";
import type { RequestStates } from "./request-state.ts";

/**
 * The one place an error becomes a response: an AppError as itself, the database away as a 503 to retry,
 * Elysia's not-found/validation/parse failures as their codes, anything else as a logged 500 that shows nothing.
 */
export function errorsPlugin(services: Services, state: RequestStates) {
  const { log } = services;
  return new Elysia({ name: "errors" }).onError({ as: "global" }, ({ code, error, request, set }) => {
    const st = state.get(request);
    let e = isAppError(error) ? error : null;
    if (!e && services.store.isUnavailable(error)) {
      log.warn("database unreachable", {
        requestId: st.requestId,
        path: st.path,
        error: redact(String((error as Error)?.message ?? error)),
      });
      e = appError("database_unavailable");
    }
    if (!e && code === "NOT_FOUND") e = appError("not_found", { message: "No such endpoint." });
    if (!e && code === "VALIDATION") {
      const v = error as { all?: { path?: string; summary?: string; message?: string }[] };
      const first = v.all?.[0];
      const param = first?.path?.replace(/^\//, "").replaceAll("/", ".") || undefined;
      e = appError("bad_request", {
        param,
        message: `Invalid request: ${param ? `${param}: ` : ""}${first?.summary ?? first?.message ?? "wrong type"}.`,
      });
    }
    // An AppError thrown while parsing (the gate's verdict on a form-field key, 413) arrives wrapped.
    if (!e && code === "PARSE") {
      const cause = (error as { cause?: unknown }).cause;
      e = isAppError(cause) ? cause : appError("bad_request", { param: "body", message: "The request body could not be read." });
    }
    if (!e) {
      log.error("unhandled error", { requestId: st.requestId, path: st.path, error: redact(String((error as Error)?.stack ?? error)) });
      e = appError("internal_error");
    }
    const response = toErrorResponse(e, set.headers as Record<string, string>, st.endpoint, requestLanguage(request));
    // Elysia would otherwise keep a parse-phase 400 over the legacy native chat's 200.
    set.status = response.status;
    return response;
  });
}
