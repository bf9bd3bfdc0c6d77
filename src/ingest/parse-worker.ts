import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { isAppError } from "../errors/index.ts";
import type { PreparedResult, PrepareJob, WorkerMessage } from "./parse-worker-protocol.ts";
import { type AnalyzeChunks, PART_CHARS, prepareDocument, splitPreparedLines } from "./prepare.ts";

export { PARSE_WORKER_COMMAND } from "./parse-worker-protocol.ts";

/** Replies up to this size travel inside the IPC message; larger ones go through the job's output file. */
const INLINE_LIMIT = 256 * 1024;

/**
 * Worker side of the parse pool: a long-lived process that takes one job at a time over IPC, reads the
 * document from the spool file, parses and chunks it, and answers with the prepared chunks. Exits when the
 * parent goes away. With `analyze`, small documents' chunks are analyzed too (prepare.ts).
 */
export async function runParseWorker(opts: { analyze?: AnalyzeChunks } = {}): Promise<never> {
  // pdf.js and friends report warnings through console.log; nothing of theirs belongs on the parent's stdout.
  console.log = console.info = console.warn = console.debug = console.error;
  const send = process.send?.bind(process);
  if (!send) {
    console.error("the parse worker needs an IPC channel to its parent");
    process.exit(2);
  }
  const reply = (m: WorkerMessage) => send(m);
  let chain = Promise.resolve();
  process.on("message", (job: PrepareJob) => {
    chain = chain.then(() => runJob(job, reply, opts.analyze));
  });
  process.on("disconnect", () => process.exit(0));
  reply({ type: "ready" });
  return await new Promise<never>(() => {});
}

async function runJob(job: PrepareJob, reply: (m: WorkerMessage) => void, analyze?: AnalyzeChunks): Promise<void> {
  if (job.more) {
    const results: PreparedResult[] = [];
    for (const item of [job, ...job.more]) results.push(await prepareOne({ ...job, ...item }, analyze));
    reply({ type: "batch", id: job.id, results });
    return;
  }
  const result = await prepareOne(job, analyze, (done, total, phase) =>
    reply({ type: "progress", id: job.id, done, total, ocr: phase === "ocr" }),
  );
  reply({ type: "done", id: job.id, ...result });
}

/** One document: parsed and chunked; its chunks inline when small, else in the job's output file, in parts. */
async function prepareOne(
  job: PrepareJob,
  analyze?: AnalyzeChunks,
  onProgress?: (done: number, total: number, phase?: "ocr") => void,
): Promise<PreparedResult> {
  try {
    const bytes = readRange(job.input, job.start, job.end);
    const prepared = await prepareDocument(bytes, job, onProgress, analyze);
    if (prepared.lines.length <= INLINE_LIMIT) return { ok: true, meta: prepared.meta, inline: prepared.lines };
    const parts = splitPreparedLines(prepared.lines, PART_CHARS).map((p) => Buffer.from(p));
    const offsets = [0];
    for (const p of parts) offsets.push((offsets.at(-1) as number) + p.byteLength);
    await Bun.write(job.output, Buffer.concat(parts));
    return { ok: true, meta: prepared.meta, offsets };
  } catch (error) {
    if (!isAppError(error)) console.error(error);
    // running out of memory or stack is the document asking too much, not a file that can't be read
    const exhausted = /out of memory|allocation failed|maximum call stack/i.test(String((error as Error)?.message ?? error));
    const code = isAppError(error) ? error.code : exhausted ? "document_too_complex" : "document_unreadable";
    return { ok: false, code, ...(isAppError(error) ? { message: error.message } : {}) };
  }
}

/**
 * Bytes start..end of a file (end past its size: to its end), read at once: the worker has one document to work on,
 * and an asynchronous read of a small file cost it more than parsing the file (a bulk load's abstracts: 18 % of its time).
 */
function readRange(path: string, start: number, end: number): Uint8Array {
  const fd = openSync(path, "r");
  try {
    const bytes = new Uint8Array(Math.max(0, Math.min(end, fstatSync(fd).size) - start));
    let at = 0;
    while (at < bytes.length) {
      const n = readSync(fd, bytes, at, bytes.length - at, start + at);
      if (n === 0) break;
      at += n;
    }
    return at === bytes.length ? bytes : bytes.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

if (import.meta.main) await runParseWorker();
