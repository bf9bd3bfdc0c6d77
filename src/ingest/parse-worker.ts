import { type ErrorCode, isAppError } from "../errors/index.ts";
import { type ParseDocumentOptions, parseDocument } from "./parse.ts";
import type { ParsedDocument } from "./types.ts";

/** Hidden CLI command under which a compiled binary re-runs itself as a parse worker. */
export const PARSE_WORKER_COMMAND = "__parse-worker";
/** The reply is the last line after this marker, so stray library output on stdout can't corrupt it. */
export const REPLY_MARKER = "@@docchat-parse-reply@@";

export type WorkerReply = { ok: true; doc: ParsedDocument } | { ok: false; code: ErrorCode };

/**
 * Worker side of `isolatedParse`: stdin is one JSON line of ParseDocumentOptions followed by the raw
 * document bytes; stdout gets REPLY_MARKER + a WorkerReply as JSON. Exits the process when done.
 */
export async function runParseWorker(): Promise<never> {
  // pdf.js reports warnings through console.log; keep stdout for the reply alone.
  console.log = console.info = console.warn = console.debug = console.error;
  const input = new Uint8Array(await Bun.stdin.arrayBuffer());
  const newline = input.indexOf(0x0a);
  let reply: WorkerReply;
  try {
    const opts = JSON.parse(new TextDecoder().decode(input.subarray(0, newline))) as ParseDocumentOptions;
    reply = { ok: true, doc: await parseDocument(input.subarray(newline + 1), opts) };
  } catch (error) {
    if (!isAppError(error)) console.error(error);
    reply = { ok: false, code: isAppError(error) ? error.code : "document_unreadable" };
  }
  await Bun.write(Bun.stdout, `\n${REPLY_MARKER}${JSON.stringify(reply)}\n`);
  process.exit(0);
}

if (import.meta.main) await runParseWorker();
