import { isAppError } from "../errors/index.ts";
import { parseDocument } from "./parse.ts";
import { REPLY_MARKER, type WorkerReply, type WorkerRequest } from "./parse-worker-protocol.ts";

export { PARSE_WORKER_COMMAND } from "./parse-worker-protocol.ts";

/**
 * Worker side of `isolatedParse`: stdin is one JSON line (WorkerRequest) followed by the raw document
 * bytes; stdout gets REPLY_MARKER + a WorkerReply as JSON. Exits the process when done.
 */
export async function runParseWorker(): Promise<never> {
  // pdf.js reports warnings through console.log; keep stdout for the reply alone.
  console.log = console.info = console.warn = console.debug = console.error;
  const input = new Uint8Array(await Bun.stdin.arrayBuffer());
  const newline = input.indexOf(0x0a);
  let reply: WorkerReply;
  try {
    const opts = JSON.parse(new TextDecoder().decode(input.subarray(0, newline))) as WorkerRequest;
    reply = { ok: true, doc: await parseDocument(input.subarray(newline + 1), opts) };
  } catch (error) {
    if (!isAppError(error)) console.error(error);
    reply = { ok: false, code: isAppError(error) ? error.code : "document_unreadable" };
  }
  await Bun.write(Bun.stdout, `\n${REPLY_MARKER}${JSON.stringify(reply)}\n`);
  process.exit(0);
}

if (import.meta.main) await runParseWorker();
