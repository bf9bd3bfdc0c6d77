import { appError } from "../../../errors/index.ts";
import { type SpooledFile, spooledFile } from "../../pipeline/upload-body.ts";

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
