import type { ErrorCode } from "../errors/index.ts";
import type { ParsedDocument } from "./types.ts";

/** Hidden CLI command under which a compiled binary re-runs itself as a parse worker. */
export const PARSE_WORKER_COMMAND = "__parse-worker";

/** The reply is the text after the last marker, so stray library output on stdout can't corrupt it. */
export const REPLY_MARKER = "@@docchat-parse-reply@@";

/** stdin: one JSON line of these options, then the raw document bytes. */
export interface WorkerRequest {
  maxPages: number;
  maxInflatedBytes: number;
  filename?: string;
}

export type WorkerReply = { ok: true; doc: ParsedDocument } | { ok: false; code: ErrorCode };
