import { Elysia } from "elysia";
import type { Services } from "../../../app.ts";
import { appError, type ErrorCode, errorCatalogue } from "../../../errors/index.ts";
import { toSeconds } from "../../../shared/wire-time.ts";
import type { DocumentRecord } from "../../../store/contract/index.ts";
import type { RequestStates } from "../../pipeline/request-state.ts";
import { readPushFields, documentsDocs } from "./documents.schemas.ts";

export function documentView(d: DocumentRecord) {
  return {
    id: d.id,
    name: d.name,
    kind: d.kind,
    status: d.status,
    chunk_count: d.chunkCount,
    pages: d.pages,
    size: d.size,
    origin: d.origin,
    error: d.errorCode ? { code: d.errorCode, message: d.errorMessage } : null,
    // pages read from images (OCR) and their mean confidence 0..100; notes: pages to check (low confidence, no text, not read)
    ocr: d.ocrPages > 0,
    ocr_pages: d.ocrPages,
    ocr_confidence: d.ocrConfidence === null ? null : Math.round(d.ocrConfidence * 10) / 10,
    notes: d.notes,
    // the language its words were stemmed in (detected, or the deployment's pinned one); null until trained
    lang: d.lang,
    // while processing: parts of the document indexed so far
    progress: d.status === "processing" && d.progress.total > 0 ? { done: d.progress.done, total: d.progress.total } : null,
    status_url: `/api/v1/documents/${d.id}`,
    created_at: toSeconds(d.createdAt),
  };
}

const statusFor = { trained: 200, queued: 202, stored: 201 } as const;

/** A document stored but not trained: its own code when that is a known client error, else training_failed. */
function trainingFailure(d: DocumentRecord) {
  const code =
    d.errorCode && d.errorCode in errorCatalogue && errorCatalogue[d.errorCode as ErrorCode].status < 500
      ? (d.errorCode as ErrorCode)
      : "training_failed";
  return appError(code, { param: "document", message: `${errorCatalogue[code].message} (document ${d.id})` });
}

/**
 * POST answers 200 when training finished within DOCCHAT_TRAIN_WAIT_MS, 202 while it is still queued or
 * running (poll `status_url`), 201 with train=false.
 */
export function documentsRoutes(services: Services, state: RequestStates) {
  return new Elysia({ name: "documents" })
    .post(
      "/api/v1/documents",
      async ({ request, body, set }) => {
        const { deployment, account } = state.gateOf(request);
        const fields = await readPushFields((body ?? {}) as Record<string, unknown>);
        const r = await services.documents.push(
          { deploymentId: deployment.id, ...fields, origin: "key" },
          { admit: () => services.uploads.slot(account.id, request.signal) },
        );
        if (r.outcome === "failed") throw trainingFailure(r.document);
        set.status = statusFor[r.outcome];
        const training = await services.deployments.trainingStatus(deployment.id);
        return { object: "document", ...documentView(r.document), unchanged: r.unchanged, training_status: training };
      },
      { afterResponse: state.finishUpload, detail: documentsDocs.push },
    )
    .get(
      "/api/v1/documents",
      async ({ request }) => {
        const { deployment } = state.gateOf(request);
        return { object: "list", data: (await services.documents.list(deployment.id)).map(documentView) };
      },
      { detail: documentsDocs.list },
    )
    .get(
      "/api/v1/documents/:id",
      async ({ request, params }) => {
        const { deployment } = state.gateOf(request);
        const d = await services.documents.getOrThrow(params.id, deployment.id);
        // a push's status_url shows key pushes; the owner's documents only to a key the owner let manage them
        if (d.origin !== "key" && !deployment.keyManagesDocuments)
          throw appError("not_found", { message: "No such document.", param: "document" });
        return { object: "document", ...documentView(d) };
      },
      { detail: documentsDocs.get },
    )
    .delete(
      "/api/v1/documents/:id",
      async ({ request, params }) => {
        const { deployment } = state.gateOf(request);
        const d = await services.documents.remove(params.id, deployment.id, "key");
        return { object: "document", id: d.id, deleted: true };
      },
      { detail: documentsDocs.remove },
    );
}
