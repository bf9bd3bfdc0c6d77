import { appError, isAppError } from "../../errors/index.ts";

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
    throw appError("bad_request", { param: "body", message: "The request body is not valid UTF-8." });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw appError("bad_request", { param: "body", message: "The request body is not valid JSON." });
  }
  if (!depthOk(value))
    throw appError("bad_request", { param: "body", message: `The request body is nested deeper than ${MAX_DEPTH} levels.` });
  return value;
}

/** Fails with 413 when the declared Content-Length is already over the limit (nothing is read). */
function checkDeclared(request: Request, limit: number): number | null {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw appError("payload_too_large");
  return Number.isFinite(declared) && declared >= 0 ? declared : null;
}

/**
 * Reads at most `limit` bytes, failing with 413 as soon as the stream passes it (chunked bodies included).
 * With a declared length the bytes land in one buffer of that size: the body is held once, not twice.
 */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = checkDeclared(request, limit);
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const tooLarge = async () => {
    await reader.cancel().catch(() => {});
    return appError("payload_too_large");
  };
  if (declared !== null) {
    const out = new Uint8Array(declared);
    let at = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (at + value.byteLength > declared) throw await tooLarge();
      out.set(value, at);
      at += value.byteLength;
    }
    return at === declared ? out : out.slice(0, at);
  }
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) throw await tooLarge();
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

/** The request body as a stream that errors with 413 once it passes `limit`, for parsers that read streams. */
function limitedStream(request: Request, limit: number): ReadableStream<Uint8Array> | null {
  checkDeclared(request, limit);
  if (!request.body) return null;
  let total = 0;
  return request.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        if (total > limit) controller.error(appError("payload_too_large"));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * Parses JSON, urlencoded and multipart bodies into a plain object (files stay File objects).
 * JSON must be an object at the top level: every endpoint takes named fields.
 */
export async function parseBody(request: Request, limit: number): Promise<ParsedBody> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "multipart/form-data") {
    // Streamed straight into the multipart parser: the files it returns are the only copy of the body.
    const stream = limitedStream(request, limit);
    let form: FormData;
    try {
      form = await new Response(stream, { headers: { "content-type": request.headers.get("content-type") ?? "" } }).formData();
    } catch (e) {
      if (isAppError(e)) throw e;
      if (isAppError((e as { cause?: unknown })?.cause)) throw (e as { cause: unknown }).cause;
      throw appError("bad_request", { param: "body", message: "The multipart body is malformed." });
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
      throw appError("bad_request", { param: "body", message: "The form body is not valid UTF-8." });
    }
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (bytes.byteLength === 0) return {};
  if (type === "application/json" || type === "" || type.endsWith("+json") || type === "text/plain") {
    const value = parseJsonBytes(bytes);
    if (!value || typeof value !== "object" || Array.isArray(value))
      throw appError("bad_request", { param: "body", message: "The request body must be a JSON object." });
    return value as ParsedBody;
  }
  // A body the endpoint cannot read is a malformed request: the spec's code, with the detail in `param`.
  throw appError("bad_request", { param: "content-type", message: "Unsupported Content-Type: send JSON, a form or multipart." });
}
