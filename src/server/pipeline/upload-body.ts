import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { appError } from "../../errors/index.ts";
import { type ParsedBody, parseBody } from "./body.ts";

/** Headroom over the document cap for the multipart envelope and the other fields. */
const ENVELOPE_BYTES = 64 * 1024;

/** An uploaded file: bytes start..end of the request's spool file. */
export interface SpooledFile {
  path: string;
  start: number;
  end: number;
}

const spooled = new WeakMap<Blob, SpooledFile>();
const leftovers = new WeakMap<Request, string[]>();
const WINDOW = 1024 * 1024;

/** The spool file range behind a file field of `readUploadBody`, so the parser reads it from disk. */
export function spooledFile(file: Blob): SpooledFile | undefined {
  return spooled.get(file);
}

/** Deletes the request's spool files (after the response); nothing to do for a request that had none. */
export async function releaseUpload(request: Request): Promise<void> {
  const paths = leftovers.get(request);
  if (!paths) return;
  leftovers.delete(request);
  await Promise.all(
    paths.map((p) =>
      Bun.file(p)
        .delete()
        .catch(() => {}),
    ),
  );
}

/**
 * Upload bodies go to disk as they arrive instead of into memory: at most `limit` (+ envelope) bytes are
 * streamed into the spool folder. A multipart body is then scanned there in 1 MB windows; its file field
 * becomes a File over its byte range of the spool file (nothing is copied or read into memory until the
 * parser, in its own process, reads it). JSON and form bodies are read back and parsed as usual.
 */
export async function readUploadBody(
  request: Request,
  limit: number,
  spoolDir: string,
  pace: MinimumRate = { bytesPerSecond: 0, graceMs: 0 },
): Promise<ParsedBody> {
  const max = limit + ENVELOPE_BYTES;
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > max) throw appError("payload_too_large");
  mkdirSync(spoolDir, { recursive: true, mode: 0o700 });
  const path = join(spoolDir, `body-${randomBytes(9).toString("hex")}`);
  leftovers.set(request, [path]);
  await streamToFile(request, path, max, pace);
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type !== "multipart/form-data") {
    const replay = new Request(request.url, { method: "POST", headers: request.headers, body: Bun.file(path) });
    return parseBody(replay, max);
  }
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(request.headers.get("content-type") ?? "");
  const mark = boundary?.[1] ?? boundary?.[2]?.trim();
  if (!mark) throw malformed();
  const out: ParsedBody = {};
  for (const part of await scanMultipart(path, mark)) {
    const bytes = Bun.file(path).slice(part.start, part.end);
    if (part.filename === undefined) {
      out[part.name] = await bytes.text();
      continue;
    }
    const file = new File([bytes], part.filename, { type: part.type });
    spooled.set(file, { path, start: part.start, end: part.end });
    out[part.name] = file;
  }
  return out;
}

const malformed = () => appError("bad_request", { message: "The multipart body is malformed." });

/** After `graceMs`, a body must keep arriving at `bytesPerSecond` on average (0: no minimum). */
export interface MinimumRate {
  bytesPerSecond: number;
  graceMs: number;
}

/**
 * Streams the body to `path`. A body that falls behind the minimum rate is cut off with 408 upload_too_slow —
 * checked by a timer too, so a client that stops sending altogether is caught as well as one that trickles.
 */
async function streamToFile(request: Request, path: string, max: number, pace: MinimumRate): Promise<void> {
  const sink = Bun.file(path).writer();
  let total = 0;
  let tooSlow = false;
  const started = performance.now();
  const reader = request.body?.getReader();
  const behind = () => {
    const ms = performance.now() - started - pace.graceMs;
    return pace.bytesPerSecond > 0 && ms > 0 && total < (pace.bytesPerSecond * ms) / 1000;
  };
  const watchdog = setInterval(() => {
    if (!behind()) return;
    tooSlow = true;
    reader?.cancel().catch(() => {});
  }, 1000);
  try {
    while (reader) {
      const { done, value } = await reader.read();
      if (tooSlow) throw appError("upload_too_slow");
      if (done) break;
      total += value.byteLength;
      if (total > max) throw appError("payload_too_large");
      sink.write(value);
      await sink.flush();
    }
  } catch (e) {
    throw tooSlow ? appError("upload_too_slow") : e;
  } finally {
    clearInterval(watchdog);
    await sink.end();
  }
}

interface Part {
  name: string;
  filename?: string;
  type?: string;
  start: number;
  end: number;
}

/** Offsets of every `needle` in the file, read in windows that overlap by the needle's length. */
async function findAll(path: string, needle: Buffer): Promise<number[]> {
  const file = Bun.file(path);
  const hits: number[] = [];
  for (let at = 0; at < file.size; at += WINDOW) {
    const window = Buffer.from(await file.slice(at, Math.min(file.size, at + WINDOW + needle.length - 1)).arrayBuffer());
    for (let i = window.indexOf(needle); i !== -1 && i < WINDOW; i = window.indexOf(needle, i + 1)) hits.push(at + i);
  }
  return hits;
}

/** RFC 7578 parts: after each delimiter, headers up to a blank line, then content up to CRLF + the next delimiter. */
async function scanMultipart(path: string, boundary: string): Promise<Part[]> {
  const delimiter = Buffer.from(`--${boundary}`);
  const at = await findAll(path, delimiter);
  if (at.length < 2) throw malformed();
  const parts: Part[] = [];
  for (let i = 0; i + 1 < at.length; i++) {
    const start = (at[i] as number) + delimiter.length;
    const end = (at[i + 1] as number) - 2; // the CRLF before the next delimiter
    const head = Buffer.from(
      await Bun.file(path)
        .slice(start, Math.min(end, start + 16 * 1024))
        .arrayBuffer(),
    );
    const headersEnd = head.indexOf("\r\n\r\n");
    if (headersEnd === -1 || start + headersEnd + 4 > end) throw malformed();
    const headers = head.subarray(0, headersEnd).toString("utf8");
    const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? "";
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    const type = /content-type:\s*([^\r\n]*)/i.exec(headers)?.[1]?.trim();
    if (name !== undefined) parts.push({ name, filename, type, start: start + headersEnd + 4, end });
  }
  return parts;
}
