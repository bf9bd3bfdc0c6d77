import { availableParallelism, cpus, setPriority } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { processEnv } from "../config/index.ts";
import { appError, errorCatalogue } from "../errors/index.ts";
import type { ChunkOptions } from "./chunk.ts";
import { PARSE_WORKER_COMMAND, type PreparedMeta, type PrepareJob, type WorkerMessage } from "./parse-worker-protocol.ts";
import { PART_CHARS, splitPreparedLines } from "./prepared-lines.ts";
import type { OcrOptions } from "./types.ts";
import { readResidentBytesNow, watchCpuTime, watchResidentMemory, withAddressSpaceLimit } from "./worker-watchdog.ts";

export interface ParsePoolOptions {
  /** folder for the files that carry bytes and replies between parent and workers (private) */
  spoolDir: string;
  /** how to start a worker; default: see defaultWorkerCommand() */
  command?: string[];
  /** processes kept; 0 = one per core, at most 4 */
  size?: number;
  /**
   * limit per document, in CPU time of its worker (Linux; the clock elsewhere); past it the worker is SIGKILLed and
   * replaced. The clock is a backstop at WALL_CLOCK_FACTOR times it, for a worker stuck without using the CPU.
   */
  timeoutMs?: number;
  /** the clock backstop as a multiple of timeoutMs (default WALL_CLOCK_FACTOR) */
  clockFactor?: number;
  /** resident-memory limit per document (Linux), 0 = none; an address-space cap of max(8 GB, 4x) backs it up */
  memoryLimitMb?: number;
  /** a worker is retired after this many documents */
  recycleAfter?: number;
  /** ... or when its resident memory is above this after a document */
  recycleRssMb?: number;
  maxPages: number;
  maxInflatedBytes: number;
  chunking: ChunkOptions;
  ocr: OcrOptions;
}

const WORKER_NICENESS = 10;
/**
 * JavaScriptCore's options for the workers (BUN_JSC_*; one the operator set wins): no FTL, its top tier. A worker
 * lives a few hundred documents, and FTL's compiles, on another thread, cost it more CPU than they save: a bulk load's
 * parse workers spent 10–20 % less CPU a document without them, and PDFs parse no slower (BENCHMARKS.md, "Ingest at scale").
 */
const WORKER_JSC = { BUN_JSC_useFTLJIT: "0" };
/** A document may take this many times its CPU limit on the clock (a busy machine, waiting on the disk). */
const WALL_CLOCK_FACTOR = 5;

/**
 * Why a worker stopped mid-document, as the document's error: the document asked for more than one document may
 * have (a 4xx the same file will meet again), or the server failed it (a 503 to retry).
 */
type Stop = { reason: string; code: "document_too_complex" | "parse_failed" };

export const DEFAULT_ISOLATION = { timeoutMs: 60_000, memoryLimitMb: 2048, recycleAfter: 200, recycleRssMb: 768 } as const;

export interface PrepareRequest {
  /** the document's bytes on disk (the whole file, or bytes start..end of it); the pool only reads it */
  path: string;
  start?: number;
  end?: number;
  filename?: string;
  /** the deployment's pinned languages: the chunks may be analyzed in the worker (PrepareJob.languages) */
  languages?: string[];
  onProgress?: (done: number, total: number, phase?: "ocr") => void;
}

export interface PreparedDocument {
  meta: PreparedMeta;
  /** the chunks as JSON lines (see prepare.ts), in parts of whole lines; read them with preparedParts() */
  inline?: string;
  file?: { path: string; offsets: number[] };
}

/** The prepared chunks part by part, each read from disk on its own (a large reply is never one string). */
export async function* preparedParts(prepared: PreparedDocument): AsyncGenerator<string> {
  if (prepared.inline !== undefined) {
    yield* splitPreparedLines(prepared.inline, PART_CHARS);
    return;
  }
  if (!prepared.file) return;
  const file = Bun.file(prepared.file.path);
  const { offsets } = prepared.file;
  for (let i = 0; i + 1 < offsets.length; i++) yield await file.slice(offsets[i], offsets[i + 1]).text();
}

/** Deletes a prepared reply's spool file (after its parts were stored, or on failure). */
export async function discardPrepared(prepared: PreparedDocument): Promise<void> {
  if (prepared.file)
    await Bun.file(prepared.file.path)
      .delete()
      .catch(() => {});
}

/**
 * From source: this Bun running parse-worker.ts (or `script`, a worker entry built on it). In a `bun build --compile`
 * binary the sources live in Bun's virtual filesystem, so the binary re-runs itself with the hidden worker command instead.
 */
export function defaultWorkerCommand(script = join(import.meta.dir, "parse-worker.ts")): string[] {
  const compiled = import.meta.path.startsWith("/$bunfs/") || /^[a-z]:\\~bun\\/i.test(import.meta.path);
  if (compiled) return [process.execPath, PARSE_WORKER_COMMAND];
  return [process.execPath, script];
}

/** The document's error for a stop; a server fault says when to try again. */
function parseError(stop: Stop) {
  return appError(stop.code, {
    cause: new Error(stop.reason),
    ...(stop.code === "parse_failed" ? { headers: { "retry-after": "5" } } : {}),
  });
}

export function defaultPoolSize(): number {
  // Under `bun test`, availableParallelism() was seen to return undefined once pdf.js had loaded in-process.
  const reported = Number(availableParallelism());
  const cores = Number.isFinite(reported) && reported > 0 ? reported : cpus().length || 1;
  return Math.max(1, Math.min(4, cores));
}

interface Pending {
  ocrAllowed?: boolean;
  job: PrepareJob;
  request: PrepareRequest;
  resolve: (v: PreparedDocument) => void;
  reject: (e: unknown) => void;
  /** a batched job (prepareBatch): one outcome per document */
  resolveBatch?: (v: BatchOutcome[]) => void;
}

/** A document's outcome in a batch: prepared, or the error it alone failed with. */
export type BatchOutcome = { ok: true; prepared: PreparedDocument } | { ok: false; error: unknown };

/** A document the worker refused: its code (and the parser's own wording, when it said more). */
const failedWith = (code: string, message?: string) =>
  code in errorCatalogue ? appError(code as keyof typeof errorCatalogue, message ? { message } : {}) : appError("document_unreadable");

interface Slot {
  proc: Subprocess;
  jobs: number;
  current: Pending | null;
  /**
   * A batch sent while the current one runs (pipelining), so the worker starts it the moment it replies instead of
   * waiting for the server's event loop to read the reply and send the next: a bulk load's server thread is busy
   * writing rows, and its workers sat idle a third of the time. Its limits start when it becomes current.
   */
  next: Pending | null;
  /** to be retired once its current job is done (it has one more in hand) */
  retiring?: boolean;
  stderr: string;
  killedFor?: Stop;
  dead: boolean;
}

/**
 * A pool of long-lived parser processes. Each document still runs in a separate process from the server (a
 * file that hangs, loops or eats memory costs its own document, never the server), but a process serves many
 * documents instead of starting afresh for each. A worker that dies, is killed by the timeout or the memory
 * watchdog, or has served `recycleAfter` documents is replaced; the queue carries on.
 */
export function createParsePool(opts: ParsePoolOptions) {
  const size = opts.size && opts.size > 0 ? opts.size : defaultPoolSize();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_ISOLATION.timeoutMs;
  const memoryLimitMb = opts.memoryLimitMb ?? DEFAULT_ISOLATION.memoryLimitMb;
  const recycleAfter = opts.recycleAfter ?? DEFAULT_ISOLATION.recycleAfter;
  const recycleRss = (opts.recycleRssMb ?? DEFAULT_ISOLATION.recycleRssMb) * 1024 * 1024;
  const command = opts.command ?? defaultWorkerCommand();
  const argv = memoryLimitMb > 0 ? withAddressSpaceLimit(command, Math.max(8192, memoryLimitMb * 4)) : command;
  const slots = new Set<Slot>();
  const queue: Pending[] = [];
  let seq = 0;
  let closed = false;
  let started = 0;

  function spawn(): Slot {
    started++;
    const slot: Slot = { proc: undefined as unknown as Subprocess, jobs: 0, current: null, next: null, stderr: "", dead: false };
    slot.proc = Bun.spawn(argv, {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      serialization: "json",
      env: { ...WORKER_JSC, ...processEnv() },
      ipc: (m: WorkerMessage) => onMessage(slot, m),
      onExit: (_p, code, signal) => onExit(slot, code, signal),
    });
    // Parsing yields the CPU to the server's own thread: on a busy machine /health and answers go first.
    try {
      setPriority(slot.proc.pid, WORKER_NICENESS);
    } catch {}
    void drainStderr(slot);
    slots.add(slot);
    return slot;
  }

  async function drainStderr(slot: Slot): Promise<void> {
    const stream = slot.proc.stderr;
    if (!stream || typeof stream === "number") return;
    const decoder = new TextDecoder();
    for await (const part of stream as ReadableStream<Uint8Array>)
      slot.stderr = (slot.stderr + decoder.decode(part, { stream: true })).slice(-4000);
  }

  function onMessage(slot: Slot, m: WorkerMessage): void {
    const p = slot.current;
    if (m.type === "ready" || !p || m.id !== p.job.id) return;
    if (m.type === "progress") {
      // OCR bounds its own time (opts.ocr.timeoutMs); once it starts, the hard limit makes room for it
      if (m.ocr && !p.ocrAllowed) {
        p.ocrAllowed = true;
        armTimer(slot, timeoutMs + opts.ocr.timeoutMs);
      }
      p.request.onProgress?.(m.done, m.total, m.ocr ? "ocr" : undefined);
      return;
    }
    finishJob(slot);
    promote(slot);
    if (m.type === "batch") {
      const outputs = [p.job.output, ...(p.job.more ?? []).map((i) => i.output)];
      p.resolveBatch?.(
        m.results.map((r, i): BatchOutcome => {
          if (!r.ok) return { ok: false, error: failedWith(r.code, r.message) };
          if (r.inline !== undefined) return { ok: true, prepared: { meta: r.meta, inline: r.inline } };
          return { ok: true, prepared: { meta: r.meta, file: { path: outputs[i] as string, offsets: r.offsets ?? [0] } } };
        }),
      );
    } else if (!m.ok) p.reject(failedWith(m.code, m.message));
    else if (m.inline !== undefined) p.resolve({ meta: m.meta, inline: m.inline });
    else p.resolve({ meta: m.meta, file: { path: p.job.output, offsets: m.offsets ?? [0] } });
    afterJob(slot);
  }

  function onExit(slot: Slot, code: number | null, signal: number | string | null): void {
    slot.dead = true;
    slots.delete(slot);
    // the batch sent ahead did nothing wrong: it goes first to the next worker (or fails with the pool's closing)
    const ahead = slot.next;
    slot.next = null;
    if (ahead && closed) ahead.reject(parseError({ code: "parse_failed", reason: "the server is shutting down" }));
    else if (ahead) queue.unshift(ahead);
    const p = slot.current;
    if (p) {
      finishJob(slot);
      // a worker that dies on its own ran out of memory on this document, or failed for a reason of the server's
      const oom = /out of memory|allocation failed|ENOMEM/i.test(slot.stderr);
      const stop = slot.killedFor ?? {
        reason: `parse worker exited with ${code ?? signal}: ${slot.stderr.slice(-2000)}`,
        code: oom ? "document_too_complex" : "parse_failed",
      };
      p.reject(parseError(stop));
    }
    dispatch();
  }

  const stops = new Map<Slot, () => void>();
  const timers = new Map<Slot, ReturnType<typeof setTimeout>>();
  const cpuWatches = new Map<Slot, () => void>();
  /**
   * (Re)starts the limits of the slot's current document: `ms` of the worker's CPU time, and the clock as a backstop
   * (the only limit where CPU time can't be read).
   */
  function armTimer(slot: Slot, ms: number): void {
    clearTimeout(timers.get(slot));
    cpuWatches.get(slot)?.();
    const tooLong = { code: "document_too_complex" as const };
    const stopCpu = watchCpuTime(slot.proc.pid, ms, () => kill(slot, { ...tooLong, reason: `parse used more than ${ms} ms of CPU` }));
    if (stopCpu) cpuWatches.set(slot, stopCpu);
    const wall = stopCpu ? ms * (opts.clockFactor ?? WALL_CLOCK_FACTOR) : ms;
    timers.set(
      slot,
      setTimeout(() => kill(slot, { ...tooLong, reason: `parse timed out after ${wall} ms` }), wall),
    );
  }
  function finishJob(slot: Slot): void {
    stops.get(slot)?.();
    stops.delete(slot);
    cpuWatches.get(slot)?.();
    cpuWatches.delete(slot);
    slot.current = null;
  }

  function kill(slot: Slot, stop: Stop): void {
    slot.killedFor ??= stop;
    slot.proc.kill("SIGKILL");
  }

  /** Retires a worker that has done enough or grown too big; the next job starts a fresh one. */
  function afterJob(slot: Slot): void {
    slot.jobs++;
    const rss = slot.jobs >= recycleAfter ? Number.POSITIVE_INFINITY : readResidentBytesNow(slot.proc.pid);
    if (slot.retiring || (rss !== undefined && rss > recycleRss)) {
      // one sent ahead is finished first
      if (slot.current) slot.retiring = true;
      else retire(slot);
    }
    dispatch();
  }

  /** The batch sent ahead becomes the current job: its limits start now. */
  function promote(slot: Slot): void {
    const p = slot.next;
    if (!p) return;
    slot.next = null;
    start(slot, p);
  }

  function retire(slot: Slot): void {
    slots.delete(slot);
    slot.dead = true;
    slot.proc.kill("SIGTERM");
  }

  function dispatch(): void {
    while (queue.length > 0 && !closed) {
      let slot = [...slots].find((s) => !s.current && !s.dead);
      if (!slot && slots.size < size) slot = spawn();
      if (!slot) break;
      const p = queue.shift() as Pending;
      start(slot, p);
      send(slot, p);
    }
    // a batch more for each worker busy with a batch, sent ahead (single documents keep a worker to themselves)
    for (const slot of slots) {
      const head = queue[0];
      if (!head?.resolveBatch || closed) return;
      if (slot.dead || slot.retiring || slot.next || !slot.current?.resolveBatch) continue;
      slot.next = queue.shift() as Pending;
      send(slot, slot.next);
    }
  }

  /** The job's limits: CPU time and clock (armTimer), and resident memory. */
  function start(s: Slot, p: Pending): void {
    s.current = p;
    armTimer(s, timeoutMs);
    const stopWatch = watchResidentMemory(s.proc.pid, memoryLimitMb * 1024 * 1024, () =>
      kill(s, { code: "document_too_complex", reason: `parse worker exceeded ${memoryLimitMb} MB resident memory` }),
    );
    stops.set(s, () => {
      clearTimeout(timers.get(s));
      timers.delete(s);
      stopWatch();
    });
  }

  function send(s: Slot, p: Pending): void {
    try {
      s.proc.send(p.job);
    } catch (cause) {
      kill(s, { code: "parse_failed", reason: `could not reach the parse worker: ${String(cause)}` });
    }
  }

  function jobFor(request: PrepareRequest): PrepareJob {
    const id = ++seq;
    return {
      type: "job",
      id,
      input: request.path,
      start: request.start ?? 0,
      end: request.end ?? Number.MAX_SAFE_INTEGER,
      output: join(opts.spoolDir, `reply-${process.pid}-${id}-${Date.now()}.jsonl`),
      filename: request.filename,
      languages: request.languages,
      maxPages: opts.maxPages,
      maxInflatedBytes: opts.maxInflatedBytes,
      chunking: opts.chunking,
      ocr: opts.ocr,
    };
  }

  return {
    size,
    /** how many worker processes were started so far (tests: a killed worker is replaced) */
    started: () => started,
    pids: () => [...slots].map((s) => s.proc.pid),
    /** workers parsing a document right now (diagnostics, and tests that fail one mid-document) */
    busyPids: () => [...slots].filter((s) => s.current).map((s) => s.proc.pid),
    prepare(request: PrepareRequest): Promise<PreparedDocument> {
      if (closed) return Promise.reject(parseError({ code: "parse_failed", reason: "the parse pool is closed" }));
      const job = jobFor(request);
      return new Promise<PreparedDocument>((resolve, reject) => {
        queue.push({ job, request, resolve, reject });
        dispatch();
      });
    },
    /**
     * Several small documents in ONE job (one round trip to a worker, one slot of the queue): an outcome per
     * document, in order. Rejects as a whole when the worker fails (dies, times out): the caller then prepares
     * them one by one, so a file that kills its worker fails alone (parse-batching.ts).
     */
    prepareBatch(requests: PrepareRequest[]): Promise<BatchOutcome[]> {
      const [first, ...rest] = requests;
      if (closed || !first) return Promise.reject(parseError({ code: "parse_failed", reason: "the parse pool is closed" }));
      const job = jobFor(first);
      job.more = rest.map((r) => {
        const j = jobFor(r);
        return { input: j.input, start: j.start, end: j.end, output: j.output, filename: j.filename, languages: j.languages };
      });
      return new Promise<BatchOutcome[]>((resolveBatch, reject) => {
        queue.push({ job, request: first, resolve: () => {}, resolveBatch, reject });
        dispatch();
      });
    },
    async close(): Promise<void> {
      closed = true;
      for (const p of queue.splice(0)) p.reject(parseError({ code: "parse_failed", reason: "the server is shutting down" }));
      const exits = [...slots].map((s) => s.proc.exited);
      for (const s of slots) {
        if (s.current) kill(s, { code: "parse_failed", reason: "the server is shutting down" });
        else s.proc.kill("SIGTERM");
      }
      await Promise.all(exits);
    },
  };
}

export type ParsePool = ReturnType<typeof createParsePool>;
