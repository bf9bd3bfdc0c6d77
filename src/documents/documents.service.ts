import { randomBytes } from "node:crypto";
import type { Config } from "../config/index.ts";
import { appError } from "../errors/index.ts";
import { BATCH_DOCUMENTS } from "../ingest/parse-batching.ts";
import { discardPrepared, type PreparedDocument, type PrepareRequest, preparedParts } from "../ingest/parse-pool.ts";
// up to this, a document's bytes and chunks go inline with its row; above, in parts, each its own short write
import { STORED_INLINE_MAX as INLINE_MAX } from "../ingest/parse-worker-protocol.ts";
import { createWakeableSleep } from "../shared/wakeable-sleep.ts";
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
import { waitUntilSettled } from "./settled.ts";
import type { TrainingWorker } from "./training.worker.ts";
import { createUploadProgress, type ProgressFn } from "./upload-progress.ts";
import { createUploadSpool, type DocumentSource, type FileRange, hashFile, sliceOf } from "./upload-spool.ts";

export type { FileRange } from "./upload-spool.ts";

export type PrepareFn = (request: PrepareRequest) => Promise<PreparedDocument>;

export interface PushInput extends DocumentSource {
  deploymentId: string;
  name: string;
  train: boolean;
  replace: boolean;
  /**
   * owner: the console or the CLI; key: the deployment key (public in the widget), which may replace only what
   * was pushed with a key, is compared only with that (`unchanged`), and is bounded by the deployment's push share.
   * Default: owner (every caller but the public push endpoint acts for the owner).
   */
  origin?: DocumentOrigin;
  /** pages parsed so far (or, "ocr", scanned pages read so far), while the parse pool works on it */
  onProgress?: ProgressFn;
}

export interface PushResult {
  document: DocumentRecord;
  /** identical content under the same name was already there: nothing was added */
  unchanged: boolean;
  outcome: "trained" | "queued" | "stored" | "failed";
}

const NAME_MAX = 255;
const PART_BYTES = 128 * 1024;
/** Rows of a bulk load committed together (each commit is an fsync). */
const BULK_GROUP = 256;
/** ... and, trained as they are stored, at most this much of their prepared lines a transaction. */
const TRAINED_CHARS = 2 * 1024 * 1024;

/** What a bulk load's reads share: its quota ledger, its prepare function, the deployments' pinned languages. */
interface BulkRead {
  ledger: QuotaLedger;
  prepare: PrepareFn;
  languages: (deploymentId: string) => Promise<string[]>;
}

/** A document read and prepared, its large parts written: only its row is left to insert. */
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

/**
 * Documents in, one use case: a push is read (hashed, checked, prepared by the parse pool), stored (its row, its
 * large parts before it) and, when asked, queued for training and waited for. Each step is a function below,
 * named for what it does; the bulk load (pushMany) runs the same read and store steps many at a time.
 */
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
  const spool = createUploadSpool(deps.spoolDir);
  const progress = createUploadProgress();

  /** Step: the file's hash (and, when small, its bytes, read once for the hash and to store inline). */
  async function fingerprint(file: FileRange): Promise<{ hash: string; small: Uint8Array | null; size: number }> {
    const size = file.end - file.start;
    if (size === 0) throw appError("document_unreadable", { message: "The document is empty." });
    if (size > config.maxUploadBytes) throw appError("payload_too_large");
    const small = size <= INLINE_MAX ? await sliceOf(file).bytes() : null;
    const hash = small ? new Bun.CryptoHasher("sha256").update(small).digest("hex") : await hashFile(file);
    return { hash, small, size };
  }

  /**
   * Step: same name, same content, not failed — nothing to add (though a stored one is queued when asked to train).
   * A key push is compared only with key pushes, so `unchanged` never confirms a guess about the owner's documents.
   */
  async function findUnchanged(input: PushInput, name: string, hash: string): Promise<PushResult | null> {
    const same = (await documents.findByName(input.deploymentId, name)).find(
      (d) => d.contentHash === hash && d.status !== "failed" && (input.origin !== "key" || d.origin === "key"),
    );
    if (!same) return null;
    if (input.train && same.status === "stored") {
      await documents.queueDeployment(input.deploymentId);
      await queueForTraining(input.deploymentId);
    }
    const current = (await documents.get(same.id)) as DocumentRecord;
    const outcome = current.status === "completed" ? "trained" : current.status === "stored" ? "stored" : "queued";
    return { document: current, unchanged: true, outcome };
  }

  /**
   * Step: quotas, checked before the file is parsed or stored; a replacing push doesn't count what it replaces. The
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

  /** Step: a large document's prepared chunks and bytes, each part one short write with the event loop free in between. */
  async function writeParts(id: string, prepared: PreparedDocument, file: FileRange): Promise<void> {
    let seq = 0;
    for await (const part of preparedParts(prepared)) {
      await documents.insertPart(id, "chunks", seq++, part);
      await yieldToLoop();
    }
    for (let at = file.start, n = 0; at < file.end; at += PART_BYTES, n++) {
      await documents.insertPart(id, "bytes", n, await sliceOf(file, at, Math.min(file.end, at + PART_BYTES)).bytes());
      await yieldToLoop();
    }
  }

  /**
   * Read: checks, hashes and prepares one document (parse + chunk in the pool) and writes its large parts; the
   * document row itself is left to the caller so a bulk load can commit many rows at once. A file that can't be
   * read is refused here and leaves nothing behind.
   */
  async function read(input: PushInput, file: FileRange, bulk?: BulkRead): Promise<Staged | PushResult> {
    const ledger = bulk?.ledger;
    const name = cleanDocumentName(input.name);
    const { hash, small, size } = await fingerprint(file);
    const unchanged = await findUnchanged(input, name, hash);
    if (unchanged) return unchanged;
    const exact = () => checkQuota(input, name, size);
    // a key's pushes count against the deployment's push share, checked exactly; the ledger is the account's
    const admitted = ledger && input.origin !== "key" ? await ledger.admit(input.deploymentId, size, exact) : await exact();
    const settle = () => {
      if (admitted) ledger?.settle([admitted]);
    };
    let prepared: PreparedDocument;
    try {
      // the pinned languages let the parse worker analyze a small document's chunks (prepared-analysis.ts)
      const languages = await (bulk?.languages ?? pinnedLanguages)(input.deploymentId);
      prepared = await (bulk?.prepare ?? deps.prepare)({ ...file, filename: name, languages, onProgress: input.onProgress });
    } catch (error) {
      settle();
      throw error;
    }
    try {
      const { meta } = prepared;
      const record: NewDocument = {
        id: `doc_${randomBytes(9).toString("base64url")}`,
        deploymentId: input.deploymentId,
        name,
        kind: meta.kind,
        contentHash: hash,
        size,
        origin: input.origin ?? "owner",
        pages: meta.pages,
        queue: input.train,
        replaceOnTrain: input.replace,
        ocrPages: meta.ocrPages,
        ocrConfidence: meta.ocrConfidence,
        notes: meta.notes,
      };
      const token = admitted ? { admitted } : {};
      if (small && prepared.inline !== undefined && size + prepared.inline.length <= INLINE_MAX)
        return { record: { ...record, bytes: small, chunks: prepared.inline }, ...token };
      await writeParts(record.id, prepared, file);
      return { record, ...token };
    } catch (error) {
      settle();
      throw error;
    } finally {
      await discardPrepared(prepared);
    }
  }

  async function pinnedLanguages(deploymentId: string): Promise<string[]> {
    return (await deps.deployments.findById(deploymentId))?.languages ?? [];
  }

  /** Step: the deployment's training status brought up to date and the worker woken for what was queued. */
  async function queueForTraining(deploymentId: string): Promise<void> {
    await deps.trainingStore.refreshStatus(deploymentId);
    deps.training.kick();
  }

  /** Step: up to `waitMs` for the document's training; a zero wait means "never wait" (202 even if the worker is quick). */
  async function awaitTraining(doc: DocumentRecord, waitMs: number): Promise<PushResult> {
    if (waitMs <= 0) return { document: doc, unchanged: false, outcome: "queued" };
    await waitFor([doc.id], waitMs);
    const now = (await documents.get(doc.id)) ?? doc;
    // Only a completed document is "stored and trained"; one whose training failed is reported as failed.
    return {
      document: now,
      unchanged: false,
      outcome: now.status === "completed" ? "trained" : now.status === "failed" ? "failed" : "queued",
    };
  }

  function waitFor(ids: string[], ms: number): Promise<boolean> {
    return waitUntilSettled(documents, deps.training.onChange, ids, ms);
  }

  return {
    waitFor,
    /**
     * One document: (admitted) read → stored → (train) queued → awaited. `admit` (upload admission) is awaited
     * before it is read, while the console lists it, and its release called once it is stored, so the slot is not
     * held while the push waits for training.
     */
    async push(input: PushInput, opts: { waitMs?: number; admit?: () => Promise<() => void> } = {}): Promise<PushResult> {
      let release = () => {};
      let doc: DocumentRecord;
      try {
        const staged = await progress.track(input.deploymentId, input.name, input.onProgress, async (onProgress) => {
          release = (await opts.admit?.()) ?? release;
          return await spool.withFile(input, (file) => read({ ...input, onProgress }, file));
        });
        if (!("record" in staged)) return staged;
        doc = await documents.insert(staged.record);
      } finally {
        release();
      }
      if (!input.train) return { document: doc, unchanged: false, outcome: "stored" };
      await queueForTraining(input.deploymentId);
      return await awaitTraining(doc, opts.waitMs ?? config.trainWaitMs);
    },
    /**
     * Bulk load (CLI): many files, `concurrency` read at once by the parse pool, document rows stored in groups
     * (with `trainHere`, small ones stored already trained). Each file's outcome is reported through `onResult`, in
     * completion order, once its row is committed.
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
      type Read = { index: number; record: NewDocument; admitted?: Admitted };
      let pending: Read[] = [];
      const deployments = new Set<string>();
      const stored = createWakeableSleep();
      // looked up once a load: a change meanwhile only costs training the analysis (prepared-analysis.ts checks it)
      const pinned = new Map<string, Promise<string[]>>();
      const languages = (id: string) => pinned.get(id) ?? (pinned.set(id, pinnedLanguages(id)).get(id) as Promise<string[]>);
      const ledger = createQuotaLedger({
        limits: { documents: config.accountMaxDocuments, bytes: config.accountMaxBytes },
        accountOf: async (id) => (await deps.deployments.findById(id))?.accountId,
        usage: (accountId) => documents.accountUsage(accountId, null),
      });
      /**
       * Rows of a group, in one write: trained in that same write when this load trains and has a document's prepared
       * lines in hand (nothing queued, claimed or read back); the rest, or all when that fails (no embedder), queued.
       */
      let trainInWrite = true;
      /** Documents trained in one write: up to TRAINED_CHARS of prepared lines (a group of large ones is many writes). */
      const slicesOf = (reads: Read[]): Read[][] => {
        const out: Read[][] = [];
        let chars = Number.POSITIVE_INFINITY;
        for (const g of reads) {
          const n = g.record.chunks?.length ?? 0;
          if (chars + n > TRAINED_CHARS) {
            out.push([]);
            chars = 0;
          }
          (out.at(-1) as Read[]).push(g);
          chars += n;
        }
        return out;
      };
      const write = async (group: Read[]): Promise<DocumentRecord[]> => {
        const names = new Map<string, number>();
        const key = (g: Read) => `${g.record.deploymentId}\n${g.record.name}`;
        for (const g of group) names.set(key(g), (names.get(key(g)) ?? 0) + 1);
        // a name twice in one group (files of two folders) goes through the queue, which swaps the older one out
        const inHand = (g: Read) => opts.trainHere === true && g.record.queue && g.record.chunks !== undefined && names.get(key(g)) === 1;
        const written = new Map<Read, DocumentRecord>();
        const rest = group.filter((g) => !inHand(g));
        for (const slice of slicesOf(group.filter(inHand))) {
          // once it failed (the embeddings server away), the rest of the load goes through the queue, which waits well
          const docs = trainInWrite
            ? await deps.training.storeTrained(slice.map((g) => ({ record: g.record, lines: g.record.chunks as string }))).catch(() => {
                trainInWrite = false;
                return null;
              })
            : null;
          if (docs) for (const [i, g] of slice.entries()) written.set(g, docs[i] as DocumentRecord);
          else rest.push(...slice);
        }
        if (rest.length > 0) {
          const docs = await documents.insertMany(rest.map((g) => g.record));
          for (const [i, g] of rest.entries()) written.set(g, docs[i] as DocumentRecord);
        }
        return group.map((g) => written.get(g) as DocumentRecord);
      };
      /** Store: a group of read documents' rows (write), each reported once written. */
      const storeGroup = async () => {
        if (pending.length === 0) return;
        const group = pending;
        pending = [];
        try {
          const docs = await write(group);
          for (const [i, g] of group.entries()) {
            deployments.add(g.record.deploymentId);
            const document = docs[i] as DocumentRecord;
            const outcome = document.status === "completed" ? "trained" : g.record.queue ? "queued" : "stored";
            opts.onResult(g.index, { ok: true, result: { document, unchanged: false, outcome } });
          }
        } catch (error) {
          for (const g of group) opts.onResult(g.index, { ok: false, error });
        } finally {
          ledger.settle(group.flatMap((g) => (g.admitted ? [g.admitted] : [])));
          stored.wake();
        }
      };
      /** Read: one reader takes the next file until none is left. */
      const reader = async () => {
        while (next < inputs.length) {
          const index = next++;
          const input = inputs[index] as PushInput;
          try {
            const staged = await spool.withFile(input, (file) => read(input, file, { ledger, prepare: deps.prepareBulk ?? deps.prepare, languages }));
            if (!("record" in staged)) opts.onResult(index, { ok: true, result: staged });
            else {
              pending.push({ index, record: staged.record, admitted: staged.admitted });
              if (pending.length >= BULK_GROUP) await storeGroup();
            }
          } catch (error) {
            opts.onResult(index, { ok: false, error });
          }
        }
      };
      /**
       * Train alongside (--wait): what a group's write queued (large documents, parts written apart) is indexed by the
       * worker while the readers go on (woken by the write; index maintenance waits for the end).
       */
      let loading = true;
      const trainer = (async () => {
        if (!opts.trainHere) return;
        while (loading) {
          await deps.training.runUntilIdle({ merge: false, reindex: false });
          await stored.sleep(1000);
        }
      })();
      // with batching, each of the caller's parse slots carries a batch of small files
      const inFlight = Math.max(1, opts.concurrency) * (deps.prepareBulk ? BATCH_DOCUMENTS : 1);
      await Promise.all(Array.from({ length: inFlight }, reader));
      await storeGroup();
      loading = false;
      stored.wake();
      await trainer;
      for (const d of deployments) await deps.trainingStore.refreshStatus(d);
      if (opts.trainHere) await deps.training.runUntilIdle();
      else deps.training.kick();
    },
    /** Uploads of a deployment still being read (parsed, OCR) before they are stored: name and pages so far. */
    reading(deploymentId: string) {
      return progress.of(deploymentId);
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
      await queueForTraining(deploymentId);
      return n;
    },
  };
}

export type DocumentsService = ReturnType<typeof createDocumentsService>;
