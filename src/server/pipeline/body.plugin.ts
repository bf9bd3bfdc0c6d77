import { Elysia } from "elysia";
import type { Services } from "../../app.ts";
import { appError, isAppError } from "../../errors/index.ts";
import { OWNER_API, readCookie, SESSION_COOKIE } from "../routes/owner/owner-guard.ts";
import { parseBody } from "./body.ts";
import type { RequestStates } from "./request-state.ts";
import { refuseUnstorable } from "./unstorable-text.ts";
import { readUploadBody } from "./upload-body.ts";

/**
 * GET and HEAD routes never read a body, and Elysia never runs a parse hook for them; but it composes every route
 * that carries one (the global hook above) as an async handler. Without it a read is a plain function call — the
 * gated `GET /api/v1/models` spends about a quarter less CPU (BENCHMARKS.md, "HTTP throughput").
 */
export function withoutParseOnReads(routes: { method: string; hooks: { parse?: unknown } }[]): void {
  for (const route of routes) if (route.method === "GET" || route.method === "HEAD") route.hooks.parse = undefined;
}

/** Multipart document uploads to the owner API may be as large as a document push. */
export function isOwnerUpload(pathname: string): boolean {
  return pathname.startsWith(`${OWNER_API}/deployments/`) && pathname.endsWith("/documents");
}

function declaredLength(request: Request): number {
  const n = Number(request.headers.get("content-length") ?? "0");
  return Number.isFinite(n) ? n : 0;
}

/**
 * Bodies and uploads: every body is parsed here, within its limit, and refused if it holds text that could not be
 * stored. An upload (a document push, an owner's upload) takes its place in the account's backlog and its share
 * of the spool (services.uploads) before a byte is read, and streams to the spool folder at a minimum rate (both
 * freed by the upload route's afterResponse: state.finishUpload); the owner's session is checked before an
 * upload body is read, as the API key is for visitors. Until the gate has passed (its key may be a form field,
 * `gate` runs it with that field), no more than a small body is read.
 */
export function bodyPlugin(
  services: Services,
  state: RequestStates,
  gate: (request: Request, headers: Record<string, string | number>, bodyKey?: unknown) => Promise<void> | undefined,
) {
  const { config } = services;
  return new Elysia({ name: "body" }).onParse({ as: "global" }, async ({ request, set }) => {
    const st = state.get(request);
    const upload = (st.endpoint === "v1.documents" && request.method === "POST") || isOwnerUpload(st.path);
    const owner = isOwnerUpload(st.path) ? await services.sessions.authenticate(readCookie(request, SESSION_COOKIE)) : null;
    if (isOwnerUpload(st.path) && !owner) throw appError("unauthorized", { message: "Your session has ended. Please sign in again." });
    const gated = !st.endpoint || st.gate !== undefined;
    const limit = !gated ? config.maxBodyBytes : upload ? config.maxUploadBytes : config.maxBodyBytes;
    const uploader = owner?.account.id ?? st.gate?.account.id;
    if (upload && gated && uploader !== undefined) st.release = services.uploads.enter(uploader, declaredLength(request) || limit);
    let body: Record<string, unknown> = {};
    let failure: unknown = null;
    try {
      // a gated upload streams to the spool folder instead of memory (deleted after the response), at a
      // minimum rate; an ungated one may only be small, since its key can't have been checked yet
      body =
        upload && gated
          ? await readUploadBody(request, limit, services.spoolDir, {
              bytesPerSecond: config.uploadMinBytesPerSecond,
              graceMs: config.uploadRateGraceSeconds * 1000,
            })
          : await parseBody(request, limit);
    } catch (e) {
      failure = e;
    }
    try {
      await gate(request, set.headers as Record<string, string>, body.api_key);
    } catch (e) {
      // A body that can't be read can't carry a key either: the request is malformed (400), not keyless.
      if (failure && isAppError(e) && e.code === "bad_key") throw failure;
      throw e;
    }
    if (failure) throw failure;
    refuseUnstorable(body);
    return body;
  });
}
