import { appError } from "../errors/index.ts";

export type ParsedBody = Record<string, unknown>;

const MAX_DEPTH = 64;

function depthOk(v: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(v)) return v.every((x) => depthOk(x, depth + 1));
  if (v && typeof v === "object") return Object.values(v).every((x) => depthOk(x, depth + 1));
  return true;
}

/** Strict UTF-8 then JSON; invalid bytes, bad syntax and absurd nesting are all a 400, never a 500. */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw appError("invalid_json", { message: "The request body is not valid UTF-8." });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw appError("invalid_json");
  }
  if (!depthOk(value)) throw appError("bad_request", { message: `The request body is nested deeper than ${MAX_DEPTH} levels.` });
  return value;
}

/** Reads at most `limit` bytes, failing with 413 as soon as the stream passes it (chunked bodies included). */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw appError("payload_too_large");
  if (!request.body) return new Uint8Array();
  const parts: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw appError("payload_too_large");
    }
    parts.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * Parses JSON, urlencoded and multipart bodies into a plain object (files stay File objects).
 * JSON must be an object at the top level: every endpoint takes named fields.
 */
export async function parseBody(request: Request, limit: number): Promise<ParsedBody> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "multipart/form-data") {
    const declared = Number(request.headers.get("content-length") ?? "NaN");
    if (Number.isFinite(declared) && declared > limit) throw appError("payload_too_large");
    const bytes = await readLimited(request, limit);
    let form: FormData;
    try {
      form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": request.headers.get("content-type") ?? "" } }).formData();
    } catch {
      throw appError("bad_request", { message: "The multipart body is malformed." });
    }
    const out: ParsedBody = {};
    for (const [k, v] of form.entries()) out[k] = v;
    return out;
  }
  const bytes = await readLimited(request, limit);
  if (type === "application/x-www-form-urlencoded") {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw appError("bad_request", { message: "The form body is not valid UTF-8." });
    }
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (bytes.byteLength === 0) return {};
  if (type === "application/json" || type === "" || type.endsWith("+json") || type === "text/plain") {
    const value = parseJsonBytes(bytes);
    if (!value || typeof value !== "object" || Array.isArray(value)) throw appError("bad_request", { message: "The request body must be a JSON object." });
    return value as ParsedBody;
  }
  throw appError("unsupported_media_type");
}
