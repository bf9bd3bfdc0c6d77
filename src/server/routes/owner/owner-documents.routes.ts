import type { Services } from "../../../app.ts";
import type { DocumentRecord } from "../../../store/contract/index.ts";
import type { RequestStates } from "../../pipeline/request-state.ts";
import { documentView } from "../documents/documents.routes.ts";
import { readPushFields } from "../documents/documents.schemas.ts";
import {
  deploymentParams,
  documentParams,
  documentSchema,
  documentsResponse,
  trainResponse,
  uploadBody,
  uploadResponse,
} from "./owner.schemas.ts";
import { deploymentRoutes, type OwnerGuard } from "./owner-guard.ts";

const view = (d: DocumentRecord) => ({ ...documentView(d), status_url: `/owner/api/deployments/${d.deploymentId}/documents/${d.id}` });

/** A deployment's documents: upload (training runs in the background), list with status for polling, remove. */
export function ownerDocumentRoutes(services: Services, guard: OwnerGuard, state: RequestStates) {
  const tags = ["documents"];
  const trainingStatus = (id: string) => services.deployments.trainingStatus(id);
  return deploymentRoutes(guard, "owner-documents")
    .get(
      "/documents",
      async ({ deployment }) => {
        return {
          training_status: deployment.trainingStatus,
          data: (await services.documents.list(deployment.id)).map(view),
          reading: services.documents.reading(deployment.id),
        };
      },
      {
        params: deploymentParams,
        response: { 200: documentsResponse },
        detail: { summary: "Documents with their training status (poll while queued or processing)", tags },
      },
    )
    .post(
      "/documents",
      async ({ deployment, request, body, set }) => {
        const fields = await readPushFields(body as unknown as Record<string, unknown>);
        const r = await services.documents.push(
          { deploymentId: deployment.id, ...fields },
          { waitMs: 0, admit: () => services.uploads.slot(deployment.accountId, request.signal) },
        );
        set.status = r.outcome === "stored" ? 201 : 202;
        return { document: view(r.document), unchanged: r.unchanged, training_status: await trainingStatus(deployment.id) };
      },
      {
        params: deploymentParams,
        body: uploadBody,
        response: { 201: uploadResponse, 202: uploadResponse },
        afterResponse: state.finishUpload,
        detail: { summary: "Upload a document (multipart field `file`); training is queued", tags },
      },
    )
    .get(
      "/documents/:documentId",
      async ({ deployment, params }) => {
        return view(await services.documents.getOrThrow(params.documentId, deployment.id));
      },
      { params: documentParams, response: { 200: documentSchema }, detail: { summary: "One document's status", tags } },
    )
    .delete(
      "/documents/:documentId",
      async ({ deployment, params }) => {
        await services.documents.remove(params.documentId, deployment.id);
        return { training_status: await trainingStatus(deployment.id), data: (await services.documents.list(deployment.id)).map(view) };
      },
      { params: documentParams, response: { 200: documentsResponse }, detail: { summary: "Remove a document and its index", tags } },
    )
    .post(
      "/train",
      async ({ deployment }) => {
        const queued = await services.documents.train(deployment.id);
        return { queued, training_status: await trainingStatus(deployment.id) };
      },
      {
        params: deploymentParams,
        response: { 200: trainResponse },
        detail: { summary: "Train every untrained or failed document again", tags },
      },
    );
}
