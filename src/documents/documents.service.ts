import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/index.ts";
import { appError } from "../errors/index.ts";
import { BATCH_DOCUMENTS } from "../ingest/parse-batching.ts";
import { discardPrepared, type PreparedDocument, type PrepareRequest, preparedParts } from "../ingest/parse-pool.ts";
import { yieldToLoop } from "../shared/yield-to-loop.ts";
import type {
  DeploymentsStore,
  DocumentOrigin,
  DocumentRecord,
  DocumentsStore,
  NewDocument,
  TrainingStore,
} from "../store/contract/index.ts";
import { type Admitted, createQuotaLedger, type QuotaLedger } from "./quota-ledger.ts";
import type { TrainingWorker } from "./training.worker.ts";

export type PrepareFn = (request: PrepareRequest) => Promise<PreparedDocument>;

export interface PushInput {
  deploymentId: string;
  name: string;
  /** the document: a file on disk (read, never moved or deleted) or bytes in memory */
  file?: string | FileRange;
  bytes?: Uint8Array;
  train: boolean;
  replace: boolean;
  /**
   * owner: the console or the CLI; key: the deployment key (public in the widget), which may replace only what
   * was pushed with a key, is compared only with that (`unchanged`), and is bounded by the deployment's push share.
   * Default: owner (every caller but the public push endpoint acts for the owner).
   */
  origin?: DocumentOrigin;
  /** pages parsed so far (or, "ocr", scanned pages read so far), while the parse pool works on it */
  onProgress?: (done: number, total: number, phase?: "ocr") => void;
}

export interface PushResult {
  document: DocumentRecord;
  /** identical content under the same name was already there: nothing was added */
  unchanged: boolean;
  outcome: "trained" | "queued" | "stored" | "failed";
}

/** Bytes start..end of a file on disk (an upload's spool file holds its multipart envelope too). */
export interface FileRange {
  path: string;
  start: number;
  end: number;
}

const NAME_MAX = 255;
/** Up to this, a document's bytes and chunks go inline with its row; above, in parts, each its own short write. */
const INLINE_MAX = 512 * 1024;
const PART_BYTES = 128 * 1024;
/** A bulk load commits its document rows this many at a time (each commit is an fsync). */
const FLUSH_ROWS = 256;
const slice = (f: FileRange, start = f.start, end = f.end) => Bun.file(f.path).slice(start, end);

/** Spool files a day old belong to no request or parse still running (a crash left them). */
function sweepSpool(dir: string): void {
  const cutoff = Date.now() - 24 * 3600 * 1000;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    try {
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
    } catch {}
  }
}

/** SHA-256 of a file range, read in slices so a large file never blocks the event loop. */
async function hashFile(file: FileRange): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const part of slice(file).stream()) hasher.update(part);
  return hasher.digest("hex");
}

interface Staged {
  record: NewDocument;
  /** a bulk load's quota token, settled once the row is written */
  admitted?: Admitted;
}

/** Keeps the last path segment and refuses control characters; the name becomes the citation source. */
export function cleanDocumentName(raw: string): string {
  const base = raw.split(/[\\/]/).pop()?.trim() ?? "";
  if (!base || base.length > NAME_MAX || /[\u0000-\u001f\u007f]/.test(base)) {
    throw appError("bad_request", { param: "name", message: `name must be 1–${NAME_MAX} printable characters.` });
  }
  return base;
}

export function createDocumentsService(deps: {
  config: Config;
  documents: DocumentsStore;
  deployments: DeploymentsStore;
  /** the queue's writes: removal, status */
  trainingStore: TrainingStore;
  training: TrainingWorker;
  prepare: PrepareFn;
  /** bulk loads: small files batched into one parse job (parse-batching.ts); default `prepare` */
  prepareBulk?: PrepareFn;
  /** private folder for uploads in flight */
  spoolDir: string;
}) {
  const { documents, config } = deps;
  mkdirSync(deps.spoolDir, { recursive: true, mode: 0o700 });
  sweepSpool(deps.spoolDir);
  let spoolSeq = 0;
  /** Uploads being read by the parse pool (before their document row exists), for the console's live view. */
  const reading = new Map<number, { deploymentId: string; name: string; done: number; total: number; ocr: boolean }>();
  let readingSeq = 0;
  const spoolPath = () => join(deps.spoolDir, `upload-${process.pid}-${++spoolSeq}-${randomBytes(6).toString("hex")}`);

  /**
   * Same name, same content, not failed: nothing to add. A key push is compared only with key pushes, so
   * `unchanged` never confirms a guess about the owner's documents.
   */
  async function unchangedResult(input: PushInput, name: string, hash: string): Promise<PushResult | null> {
    const same = (await documents.findByName(input.deploymentId, name)).find(
      (d) => d.contentHash === hash && d.status !== "failed" && (input.origin !== "key" || d.origin === "key"),
    );
    if (!same) return null;
    if (input.train && same.status === "stored") {
      await documents.queueDeployment(input.deploymentId);
      await deps.trainingStore.refreshStatus(input.deploymentId);
      deps.training.kick();
    }
    const current = (await documents.get(same.id)) as DocumentRecord;
    return {
      document: current,
      unchanged: true,
      outcome: current.status === "completed" ? "trained" : current.status === "stored" ? "stored" : "queued",
    };
  }

  /**
   * Checks, hashes and prepares one document (parse + chunk in the pool) and writes its large parts; the
   * document row itself is left to the caller so a bulk load can commit many rows at once. A file that can't be
   * read is refused here and leaves nothing behind.
   */
  async function stage(input: PushInput, file: FileRange, bulk?: { ledger: QuotaLedger; prepare: PrepareFn }): Promise<Staged | PushResult> {
    const ledger = bulk?.ledger;
    const name = cleanDocumentName(input.name);
    const size = file.end - file.start;
    if (size === 0) throw appError("document_unreadable", { message: "The document is empty." });
    if (size > config.maxUploadBytes) throw appError("payload_too_large");
    // a small file is read once, for its hash and to store inline; a large one is hashed as a stream
    const small = size <= INLINE_MAX ? await slice(file).bytes() : null;
    const hash = small ? new Bun.CryptoHasher("sha256").update(small).digest("hex") : await hashFile(file);
    const unchanged = await unchangedResult(input, name, hash);
    if (unchanged) return unchanged;
    const exact = () => checkQuota(input, name, size);
    // a key's pushes count against the deployment's push share, checked exactly; the ledger is the account's
    const admitted = ledger && input.origin !== "key" ? await ledger.admit(input.deploymentId, size, exact) : await exact();
    let prepared: PreparedDocument;
    try {
      prepared = await (bulk?.prepare ?? deps.prepare)({ ...file, filename: name, onProgress: input.onProgress });
    } catch (error) {
      if (admitted) ledger?.settle([admitted]);
      throw error;
    }
    try {
      const id = `doc_${randomBytes(9).toString("base64url")}`;
      const record: NewDocument = {
        id,
        deploymentId: input.deploymentId,
        name,
        kind: prepared.meta.kind,
        contentHash: hash,
        size,
        origin: input.origin ?? "owner",
        pages: prepared.meta.pages,
        queue: input.train,
        replaceOnTrain: input.replace,
        ocrPages: prepared.meta.ocrPages,
        ocrConfidence: prepared.meta.ocrConfidence,
        notes: prepared.meta.notes,
      };
      if (small && prepared.inline !== undefined && size + prepared.inline.length <= INLINE_MAX) {
        record.bytes = small;
        record.chunks = prepared.inline;
        return { record, ...(admitted ? { admitted } : {}) };
      }
      // Large: each part is one short transaction, with the event loop free in between.
      let seq = 0;
      for await (const part of preparedParts(prepared)) {
        await documents.insertPart(id, "chunks", seq++, part);
        await yieldToLoop();
      }
      for (let at = file.start, n = 0; at < file.end; at += PART_BYTES, n++) {
        await documents.insertPart(id, "bytes", n, await slice(file, at, Math.min(file.end, at + PART_BYTES)).bytes());
        await yieldToLoop();
      }
      return { record, ...(admitted ? { admitted } : {}) };
    } catch (error) {
      if (admitted) ledger?.settle([admitted]);
      throw error;
    } finally {
      await discardPrepared(prepared);
    }
  }

  /** Runs `fn` with the input as a file range on disk: the caller's file, or the bytes written to the spool. */
  async function withFile<T>(input: PushInput, fn: (file: FileRange) => Promise<T>): Promise<T> {
    if (typeof input.file === "string") return await fn({ path: input.file, start: 0, end: Bun.file(input.file).size });
    if (input.file) return await fn(input.file);
    const path = spoolPath();
    await Bun.write(path, input.bytes ?? new Uint8Array());
    try {
      return await fn({ path, start: 0, end: Bun.file(path).size });
    } finally {
      await Bun.file(path)
        .delete()
        .catch(() => {});
    }
  }

  /**
   * Resolves when every document has left queued/processing, or when `ms` has passed. This worker's change events
   * answer at once; the poll covers training done elsewhere (another node on PostgreSQL, another process on the
   * data dir). One check at a time: a burst of change events never stacks up queries.
   */
  async function waitFor(ids: string[], ms: number): Promise<boolean> {
    const settled = async () => {
      for (const id of ids) {
        const d = await documents.get(id);
        if (d && d.status !== "completed" && d.status !== "failed" && d.status !== "stored") return false;
      }
      return true;
    };
    if (await settled()) return true;
    return await new Promise<boolean>((resolve) => {
      let done = false;
      let checking = false;
      const check = () => {
        if (checking || done) return;
        checking = true;
        settled()
          .then((ok) => ok && finish(true))
          .catch(() => {})
          .finally(() => {
            checking = false;
          });
      };
      const timer = setTimeout(() => finish(false), ms);
      const poll = setInterval(check, 100);
      const off = deps.training.onChange(check);
      function finish(v: boolean) {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearInterval(poll);
        off();
        resolve(v);
      }
    });
  }

  /**
   * Quotas, checked before the file is parsed or stored; a replacing push doesn't count what it replaces. The
   * owner's uploads count against the account's quota; key pushes against the deployment's push share only, so
   * a public key can never fill the owner's storage.
   */
  async function checkQuota(input: PushInput, name: string, size: number): Promise<void> {
    const deployment = await deps.deployments.findById(input.deploymentId);
    if (!deployment) throw appError("not_found", { message: "No such deployment.", param: "deployment" });
    if (input.origin === "key") {
      const used = await documents.pushUsage(input.deploymentId, input.replace ? name : null);
      const maxDocuments = deployment.pushMaxDocuments ?? config.pushMaxDocuments;
      const maxBytes = deployment.pushMaxBytes ?? config.pushMaxBytes;
      if (used.documents + 1 > maxDocuments)
        throw appError("push_quota_exceeded", {
          param: "documents",
          message: `Documents pushed with this key are limited to ${maxDocuments} in this deployment. Remove pushed documents to add more.`,
        });
      if (used.bytes + size > maxBytes)
        throw appError("push_quota_exceeded", {
          param: "bytes",
          message: `Documents pushed with this key are limited to ${maxBytes} bytes in this deployment. Remove pushed documents to make room.`,
        });
      return;
    }
    const used = await documents.accountUsage(deployment.accountId, input.replace ? { deploymentId: input.deploymentId, name } : null);
    if (used.documents + 1 > config.accountMaxDocuments) {
      throw appError("storage_quota_exceeded", {
        param: "documents",
        message: `This account already keeps ${used.documents} documents, its limit. Remove some to add more.`,
      });
    }
    if (used.bytes + size > config.accountMaxBytes) {
      throw appError("storage_quota_exceeded", {
        param: "bytes",
        message: `This document would take the account past its storage limit of ${config.accountMaxBytes} bytes. Remove documents to make room.`,
      });
    }
  }

  return {
    waitFor,
    /**
     * Stores one document; `admit` (upload admission) is awaited before it is parsed and its release called once
     * it is stored, so the slot is not held while the push waits for training.
     */
    async push(input: PushInput, opts: { waitMs?: number; admit?: () => Promise<() => void> } = {}): Promise<PushResult> {
      const key = ++readingSeq;
      const entry = {
        deploymentId: input.deploymentId,
        name: input.name.split(/[\\/]/).pop() ?? input.name,
        done: 0,
        total: 0,
        ocr: false,
      };
      reading.set(key, entry);
      const onProgress = (done: number, total: number, phase?: "ocr") => {
        Object.assign(entry, { done, total, ocr: phase === "ocr" });
        input.onProgress?.(done, total, phase);
      };
      let staged: Staged | PushResult;
      let doc: DocumentRecord;
      const release = (await opts.admit?.()) ?? (() => {});
      try {
        try {
          staged = await withFile(input, (path) => stage({ ...input, onProgress }, path));
        } finally {
          reading.delete(key);
        }
        if (!("record" in staged)) return staged;
        doc = await documents.insert(staged.record);
      } finally {
        release();
      }
      if (!input.train) return { document: doc, unchanged: false, outcome: "stored" };
      await deps.trainingStore.refreshStatus(input.deploymentId);
      deps.training.kick();
      const waitMs = opts.waitMs ?? config.trainWaitMs;
      // A zero wait means "never wait": the answer is 202 even if the worker happens to be quick.
      if (waitMs <= 0) return { document: doc, unchanged: false, outcome: "queued" };
      await waitFor([doc.id], waitMs);
      const now = (await documents.get(doc.id)) ?? doc;
      // Only a completed document is "stored and trained"; one whose training failed is reported as failed.
      return {
        document: now,
        unchanged: false,
        outcome: now.status === "completed" ? "trained" : now.status === "failed" ? "failed" : "queued",
      };
    },
    /**
     * Bulk load (CLI): many files, `concurrency` prepared at once by the parse pool, document rows committed in
     * groups. Never waits for training. Each file's outcome is reported through `onResult`, in completion order.
     */
    async pushMany(
      inputs: PushInput[],
      opts: {
        concurrency: number;
        onResult: (index: number, r: { ok: true; result: PushResult } | { ok: false; error: unknown }) => void;
        /** train in this process as rows land (CLI --wait): indexing overlaps parsing, and it returns when both are done */
        trainHere?: boolean;
      },
    ): Promise<void> {
      let next = 0;
      let pending: { index: number; record: NewDocument; admitted?: Admitted }[] = [];
      const deployments = new Set<string>();
      const ledger = createQuotaLedger({
        limits: { documents: config.accountMaxDocuments, bytes: config.accountMaxBytes },
        accountOf: async (id) => (await deps.deployments.findById(id))?.accountId,
        usage: (accountId) => documents.accountUsage(accountId, null),
      });
      const flush = async () => {
        if (pending.length === 0) return;
        const group = pending;
        pending = [];
        try {
          const docs = await documents.insertMany(group.map((g) => g.record));
          for (const [i, g] of group.entries()) {
            deployments.add(g.record.deploymentId);
            opts.onResult(g.index, {
              ok: true,
              result: { document: docs[i] as DocumentRecord, unchanged: false, outcome: g.record.queue ? "queued" : "stored" },
            });
          }
        } catch (error) {
          for (const g of group) opts.onResult(g.index, { ok: false, error });
        } finally {
          ledger.settle(group.flatMap((g) => (g.admitted ? [g.admitted] : [])));
        }
      };
      const worker = async () => {
        while (next < inputs.length) {
          const index = next++;
          const input = inputs[index] as PushInput;
          try {
            const staged = await withFile(input, (path) => stage(input, path, { ledger, prepare: deps.prepareBulk ?? deps.prepare }));
            if ("record" in staged) {
              pending.push({ index, record: staged.record, admitted: staged.admitted });
              if (pending.length >= FLUSH_ROWS) await flush();
            } else opts.onResult(index, { ok: true, result: staged });
          } catch (error) {
            opts.onResult(index, { ok: false, error });
          }
        }
      };
      let loading = true;
      const trainer = (async () => {
        if (!opts.trainHere) return;
        while (loading) {
          await deps.training.runUntilIdle({ merge: false });
          await Bun.sleep(20);
        }
      })();
      // with batching, each of the caller's parse slots carries a batch of small files
      const inFlight = Math.max(1, opts.concurrency) * (deps.prepareBulk ? BATCH_DOCUMENTS : 1);
      await Promise.all(Array.from({ length: inFlight }, worker));
      await flush();
      loading = false;
      await trainer;
      for (const d of deployments) await deps.trainingStore.refreshStatus(d);
      if (opts.trainHere) await deps.training.runUntilIdle();
      else deps.training.kick();
    },
    /** Uploads of a deployment still being read (parsed, OCR) before they are stored: name and pages so far. */
    reading(deploymentId: string): { name: string; done: number; total: number; ocr: boolean }[] {
      return [...reading.values()].filter((r) => r.deploymentId === deploymentId).map(({ deploymentId: _, ...r }) => r);
    },
    list(deploymentId: string): Promise<DocumentRecord[]> {
      return documents.list(deploymentId);
    },
    /** The languages the deployment's documents were analyzed in (detected, or pinned by the owner). */
    languages(deploymentId: string) {
      return documents.languages(deploymentId);
    },
    /** How many of the deployment's documents are in each status. */
    statusCounts(deploymentId: string) {
      return documents.statusCounts(deploymentId);
    },
    async getOrThrow(id: string, deploymentId: string): Promise<DocumentRecord> {
      const d = await documents.getScoped(id, deploymentId);
      if (!d) throw appError("not_found", { message: "No such document.", param: "document" });
      return d;
    },
    /** Removes the document and all its index rows in one transaction. The key removes only key pushes. */
    async remove(id: string, deploymentId: string, by: DocumentOrigin = "owner"): Promise<DocumentRecord> {
      const d = await this.getOrThrow(id, deploymentId);
      if (by === "key" && d.origin !== "key") throw appError("owner_document", { param: "document" });
      await deps.trainingStore.removeDocument(id, deploymentId);
      return d;
    },
    /** Queues every untrained or failed document of the deployment. */
    async train(deploymentId: string): Promise<number> {
      const n = await documents.queueDeployment(deploymentId);
      await deps.trainingStore.refreshStatus(deploymentId);
      deps.training.kick();
      return n;
    },
  };
}

export type DocumentsService = ReturnType<typeof createDocumentsService>;
