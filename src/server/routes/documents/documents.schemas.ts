import { appError } from "../../../errors/index.ts";
import { type SpooledFile, spooledFile } from "../../pipeline/upload-body.ts";
import { publicDoc } from "../../openapi/public-doc.ts";
import { documentPushJson, documentPushMultipart, documentSchema } from "../../openapi/public-schemas.ts";

/** JSON booleans, or "true"/"false"/"1"/"0" from form fields; absent → default. */
export function readFlag(body: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const v = body[name];
  if (v === undefined || v === null || v === "") return fallback;
  if (typeof v === "boolean") return v;
  if (typeof v === "string" && ["true", "1", "on", "yes"].includes(v.toLowerCase())) return true;
  if (typeof v === "string" && ["false", "0", "off", "no"].includes(v.toLowerCase())) return false;
  throw appError("bad_request", { param: name, message: `${name} must be true or false.` });
}

export interface PushFields {
  name: string;
  /** an upload spooled to disk (multipart), or the content's bytes (JSON) */
  file?: SpooledFile;
  bytes?: Uint8Array;
  train: boolean;
  replace: boolean;
}

/** JSON `{content, name}` or multipart `file` (alias `document`) with an optional `name`. */
export async function readPushFields(body: Record<string, unknown>): Promise<PushFields> {
  const train = readFlag(body, "train", true);
  const replace = readFlag(body, "replace", true);
  const file = body.file ?? body.document;
  if (file !== undefined && file !== null && file !== "") {
    if (!(file instanceof Blob)) throw appError("bad_request", { param: "file", message: "file must be a multipart file upload." });
    const name = typeof body.name === "string" && body.name.trim() ? body.name : (file as File).name || "document";
    const spooled = spooledFile(file);
    if (spooled) return { name, file: spooled, train, replace };
    return { name, bytes: new Uint8Array(await file.arrayBuffer()), train, replace };
  }
  if (typeof body.content !== "string")
    throw appError("bad_request", { param: "content", message: "Send content (text) with a name, or a file." });
  if (typeof body.name !== "string" || !body.name.trim())
    throw appError("bad_request", { param: "name", message: "name is required with content." });
  if (body.content.trim() === "") throw appError("bad_request", { param: "content", message: "content is empty." });
  return { name: body.name, bytes: new TextEncoder().encode(body.content), train, replace };
}

/** How these routes appear in the public OpenAPI document (openapi/public-openapi.ts). */
export const documentsDocs = {
  push: publicDoc({
    tag: "Documents",
    summary: "Push a document into the deployment (JSON text, or a multipart file).",
    description:
      "The file type is sniffed from the bytes (PDF, DOCX, TXT, CSV). 200: stored and trained, answers use it. 202: stored, training queued or running (poll status_url). " +
      "201: stored, not trained (train false). Pushing the same name again replaces it unless replace is false.",
    body: { json: documentPushJson, multipart: documentPushMultipart },
    ok: [
      { status: 200, schema: documentSchema, description: "stored and trained" },
      { status: 202, schema: documentSchema, description: "stored; training pending" },
      { status: 201, schema: documentSchema, description: "stored; not trained (train false)" },
    ],
    errors: [400, 401, 403, 413, 415, 422, 429],
  }),
  list: publicDoc({
    tag: "Documents",
    summary: "The deployment's documents.",
    ok: [{ description: "{object: list, data: [document]}" }],
    errors: [401, 403, 429],
  }),
  get: publicDoc({
    tag: "Documents",
    summary: "One document's status.",
    ok: [{ schema: documentSchema }],
    errors: [401, 403, 404, 429],
  }),
  remove: publicDoc({
    tag: "Documents",
    summary: "Remove a document and its chunks.",
    ok: [{ description: "{object: document, id, deleted: true}" }],
    errors: [401, 403, 404, 429],
  }),
};
