import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { chunkDocument } from "../ingest/chunk.ts";
import { readPreparedLines } from "../ingest/prepared-lines.ts";
import type { ChunkDraft, ParsedDocument } from "../ingest/types.ts";
import type { Logger } from "../log.ts";
import type { Embedder } from "../rag/embedder.ts";
import { chunkTerms, documentLanguage, type Lang } from "../rag/terms.ts";
import { retryDelayMs } from "../shared/backoff.ts";
import { createWakeableSleep } from "../shared/wakeable-sleep.ts";
import { yieldToLoop } from "../shared/yield-to-loop.ts";
import type {
  ChunkIndexStore,
  ChunkVector,
  DocumentRecord,
  DocumentsStore,
  NewChunk,
  NewDocument,
  TrainingStore,
} from "../store/contract/index.ts";
import { toChunks } from "./chunk-vectors.ts";
import { reindexKeywords } from "./keyword-reindex.ts";
import { preAnalyzed } from "./prepared-analysis.ts";
import { holdLeases } from "./training-leases.ts";

export { sourceName, textHash } from "./chunk-vectors.ts";

const MAX_ATTEMPTS = 3;
/** After an embeddings-server outage the queue is retried after this long, doubling up to the maximum. */
const WAIT_FIRST_MS = 1000;
const WAIT_MAX_MS = 30_000;

/** The code of a failure that means "the model server is away", not "this document is bad" (model-server.ts). */
const isServerAway = (e: unknown) => (e as { code?: string } | null)?.code === "model_server_unavailable";
/** Small documents are trained together, one transaction per batch (bulk loads): each commit is an fsync. */
const BATCH_DOCS = 128;
const BATCH_BYTES = 512 * 1024;
/** After this many documents, the FTS index is merged when the queue runs dry. */
const MERGE_AFTER_DOCS = 100;
/** Upload parts without a document row after this long were left by a crash, not by an upload still running. */
const ORPHAN_AGE_MS = 24 * 3600 * 1000;
/** How often an idle worker looks for keyword indexes to rebuild (a pinned-language change kicks it at once). */
const REINDEX_CHECK_MS = 30_000;
/** Staged chunks moved into their deployment per short transaction. */
const PUBLISH_BATCH = 50;
/** Small documents made ready between two turns of the event loop. */
const YIELD_EVERY = 16;

export interface TrainingDeps {
  documents: DocumentsStore;
  training: TrainingStore;
  index: ChunkIndexStore;
  embedder: () => Promise<Embedder | null>;
  log: Logger;
  chunking: { maxTokens: number; overlapTokens: number };
  /** how long a claim holds without renewal before another node may take the document over (default 60 s) */
  leaseMs?: number;
  /** the languages the deployment's owner pinned (none: detect each document's) */
  pinnedLanguages?: (deploymentId: string) => Promise<string[]>;
}

/** What analyzing a document's drafts reads of it (a stored document, or a bulk load's row before it is stored). */
type Analyzed = Pick<DocumentRecord, "id" | "deploymentId" | "name" | "attempts">;

/** This process's name on the documents it claims: host, pid and a random part (a restarted pid is another worker). */
export const workerId = (): string => `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;

/**
 * The persistent training queue's consumer. Each document is chunked and embedded outside any transaction,
 * then its chunks, keyword rows and vectors (and the swap-out of a replaced document) are written in ONE
 * transaction (TrainingStore, store/contract/training.contract.ts): a kill -9 leaves either the old index or the new one, never half of it.
 * Claims carry a lease renewed while the work runs, so with several nodes a dead node's documents are taken
 * over by another once its lease runs out, and a document is never trained by two at once.
 */
export function createTrainingWorker(deps: TrainingDeps) {
  const worker = workerId();
  const leaseMs = deps.leaseMs ?? 60_000;
  const store = deps.training;
  const listeners = new Set<() => void>();
  let loop: Promise<void> | null = null;
  let stopped = false;
  const pause = createWakeableSleep();

  const notify = () => {
    for (const l of listeners) l();
  };

  /**
   * A document's chunk drafts, part by part: prepared at upload by the parse pool (or, stored by an older version
   * without parts, chunked now). The parts are looked for first: an older version's document is the rare one.
   */
  async function partCount(doc: DocumentRecord): Promise<number> {
    const parts = await deps.documents.partCount(doc.id, "chunks");
    return parts > 0 ? parts : (await deps.documents.parsed(doc.id)) !== null ? 1 : 0;
  }
  async function draftsOf(doc: DocumentRecord, seq: number): Promise<ChunkDraft[]> {
    const text = await deps.documents.partText(doc.id, "chunks", seq);
    if (text !== null) return readPreparedLines(text);
    const legacy = await deps.documents.parsed(doc.id);
    if (legacy !== null) return chunkDocument(JSON.parse(legacy) as ParsedDocument, deps.chunking);
    throw new Error("prepared content missing");
  }

  /** The deployments' pinned languages, looked up once per claimed batch (not once per document). */
  let pinnedNow = new Map<string, Promise<string[]>>();
  function pinnedOf(deploymentId: string): Promise<string[]> {
    let p = pinnedNow.get(deploymentId);
    if (!p) {
      p = deps.pinnedLanguages?.(deploymentId).then((l) => l ?? []) ?? Promise.resolve([]);
      pinnedNow.set(deploymentId, p);
    }
    return p;
  }

  /** A document's language, detected from its first part (a large document's later parts keep it). */
  const docLangs = new Map<string, { lang: Lang; pinned: string[] }>();
  async function languageOf(doc: Analyzed, drafts: ChunkDraft[]) {
    const key = `${doc.id}:${doc.attempts}`;
    let known = docLangs.get(key);
    if (!known) {
      const pinned = await pinnedOf(doc.deploymentId);
      known = { lang: documentLanguage(drafts.map((d) => d.text).join("\n"), pinned), pinned };
      if (docLangs.size > 1000) docLangs.clear();
      docLangs.set(key, known);
    }
    return known;
  }

  /**
   * A document's drafts as chunks: analyzed in its language, with vectors when there is an embedder. A whole small
   * document's drafts may come analyzed from the parse worker (prepared-analysis.ts); a large one's parts never do.
   */
  async function chunksOf(doc: Analyzed, drafts: ChunkDraft[], embedder: Embedder | null, whole = false): Promise<NewChunk[]> {
    const given = whole ? preAnalyzed(drafts, await pinnedOf(doc.deploymentId)) : null;
    if (given) return toChunks(deps.index, doc, drafts, embedder, given);
    const { lang, pinned } = await languageOf(doc, drafts);
    return toChunks(deps.index, doc, drafts, embedder, chunkTerms(drafts, lang, pinned));
  }

  /** Small documents: chunks, keyword rows and vectors of the whole batch in ONE transaction. */
  async function processSmall(docs: DocumentRecord[], embedder: Embedder | null): Promise<void> {
    const ready: { doc: DocumentRecord; chunks: NewChunk[] }[] = [];
    for (const [i, doc] of docs.entries()) {
      // parse replies (and requests) are served between documents, not only once the batch is written
      if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToLoop();
      if (away) {
        await fail(doc, away);
        continue;
      }
      try {
        ready.push({ doc, chunks: await chunksOf(doc, await draftsOf(doc, 0), embedder, true) });
      } catch (e) {
        await fail(doc, e);
      }
    }
    if (ready.length > 0) await store.completeBatch(worker, ready, embedder?.id ?? null);
  }

  /**
   * A large document: its chunks are written part by part in short transactions where no search sees them
   * (staged), with the event loop free in between; then moved into the deployment in short batches, and
   * marked completed (with its vectors, and the swap-out of a replaced document) in one final transaction.
   * A crash midway leaves it "processing": its rows are removed before it is trained again.
   */
  async function processLarge(doc: DocumentRecord, parts: number, embedder: Embedder | null): Promise<void> {
    if (!(await store.clearIndex(worker, doc.id))) return;
    const vectors: ChunkVector[] = [];
    let count = 0;
    for (let seq = 0; seq < parts; seq++) {
      const chunks = await chunksOf(doc, await draftsOf(doc, seq), embedder);
      const ids = await store.stage(worker, doc, seq, parts, chunks, embedder?.id ?? null);
      if (ids === null) return;
      for (const [i, c] of chunks.entries()) if (c.vector) vectors.push({ id: ids[i] as number, vector: c.vector });
      count += chunks.length;
      notify();
      await yieldToLoop();
    }
    while ((await store.publish(worker, doc, PUBLISH_BATCH)) > 0) await yieldToLoop();
    await store.finishLarge(worker, doc, vectors, count);
  }

  let waits = 0;
  let deferred = false;

  /** A failure fails its document, unless it only means the embeddings server is away: then the document keeps
   * its place in the queue, says why it waits, and is retried when the server answers again. */
  async function fail(doc: DocumentRecord, e: unknown): Promise<void> {
    if (isServerAway(e)) {
      deferred = true;
      away = e as Error;
      deps.log.warn("embeddings server unavailable; training waits", { document: doc.id, error: String((e as Error).message) });
      await store.defer(worker, doc, "waiting_for_embeddings", `Waiting for the embeddings server: ${(e as Error).message}`);
      return;
    }
    const code = (e as { code?: string }).code ?? "training_failed";
    deps.log.warn("training failed", { document: doc.id, code, error: String((e as Error).message) });
    await store.fail(worker, doc, code, (e as Error).message || "Training failed.");
  }

  /**
   * Set when a step finds the embeddings server away: the rest of the step's documents are deferred at once
   * instead of each waiting out the server's timeouts and retries again (a hung server would hold a batch of 64
   * for hours).
   */
  let away: Error | null = null;

  let sinceMerge = 0;
  /** Claims a batch of queued documents and trains them: small ones many per transaction, large ones staged. */
  async function step(): Promise<"done" | "idle" | "deferred"> {
    const claimed = await store.claim(worker, BATCH_DOCS, leaseMs);
    if (claimed.length === 0) return "idle";
    pinnedNow = new Map();
    deferred = false;
    away = null;
    const release = holdLeases({ store, worker, ids: claimed.map((d) => d.id), leaseMs, log: deps.log });
    try {
      return await work(claimed);
    } finally {
      release();
    }
  }

  /**
   * One claimed batch, step by step: the embedder (none at all fails the batch), then each document in claim
   * order — refused when the embeddings server went away meanwhile or training was interrupted on it too often,
   * else collected into the small batch (one transaction) or, when stored in parts, trained staged on its own.
   */
  async function work(claimed: DocumentRecord[]): Promise<"done" | "deferred"> {
    let embedder: Embedder | null;
    try {
      embedder = await deps.embedder();
    } catch (e) {
      for (const doc of claimed) await fail(doc, e);
      notify();
      return finish();
    }
    const small = smallBatch(embedder);
    for (const doc of claimed) {
      // one document's trouble (a database blip included) is that document's, never the rest of the batch's
      try {
        const refusal = away ?? tooManyAttempts(doc);
        if (refusal) {
          await fail(doc, refusal);
          continue;
        }
        const parts = await partCount(doc);
        if (parts <= 1) {
          await small.add(doc);
          continue;
        }
        await small.flush();
        await processLarge(doc, parts, embedder);
      } catch (e) {
        await fail(doc, e).catch((again: unknown) =>
          deps.log.error("could not record a training failure; the document is retried later", { document: doc.id, error: String(again) }),
        );
      }
    }
    await small.flush();
    sinceMerge += claimed.length;
    notify();
    return finish();
  }

  /** A document whose training was interrupted more than MAX_ATTEMPTS times is failed, not tried again. */
  function tooManyAttempts(doc: DocumentRecord): Error | null {
    if (doc.attempts <= MAX_ATTEMPTS) return null;
    return Object.assign(new Error("Training was interrupted repeatedly on this document."), { code: "document_unreadable" });
  }

  /** Small documents collected up to BATCH_BYTES, then trained together (processSmall); a batch that fails fails its documents. */
  function smallBatch(embedder: Embedder | null) {
    let docs: DocumentRecord[] = [];
    let bytes = 0;
    const flush = async () => {
      const batch = docs;
      docs = [];
      bytes = 0;
      if (batch.length === 0) return;
      try {
        await processSmall(batch, embedder);
      } catch (e) {
        for (const d of batch) if ((await deps.documents.get(d.id))?.status === "processing") await fail(d, e);
      }
    };
    return {
      flush,
      async add(doc: DocumentRecord) {
        docs.push(doc);
        bytes += doc.size;
        if (bytes >= BATCH_BYTES) await flush();
      },
    };
  }

  /** A step that had to defer documents backs off longer each time; one that didn't resets the backoff. */
  function finish(): "done" | "deferred" {
    waits = deferred ? waits + 1 : 0;
    return deferred ? "deferred" : "done";
  }

  /**
   * Keyword indexes another analysis built (an upgrade) or whose owner pinned other languages are rebuilt when no
   * document waits, in short batches; the old index answers until the new one replaces it. Progress is logged.
   */
  let lastReport = 0;
  /** when the indexes were last found up to date: looking again costs a query per deployment, so not at every poll */
  let checkedAt = 0;
  async function reindexKeywordsIfDue(force = false): Promise<void> {
    if (!force && Date.now() - checkedAt < REINDEX_CHECK_MS) return;
    const n = await reindexKeywords(
      { index: deps.index, pinnedLanguages: deps.pinnedLanguages ?? (async () => []), log: deps.log },
      {
        pause: yieldToLoop,
        shouldStop: () => stopped,
        onProgress: (p) => {
          if (Date.now() - lastReport < 5000 && p.done < p.total) return;
          lastReport = Date.now();
          deps.log.info("re-indexing keywords", { deployment: p.deploymentId, done: p.done, total: p.total, deploymentsLeft: p.left });
        },
      },
    );
    if (n > 0) sinceMerge += MERGE_AFTER_DOCS;
    checkedAt = Date.now();
  }

  /** FTS maintenance once a bulk load has drained: merge segments in short steps. */
  async function mergeIfDue(): Promise<void> {
    if (sinceMerge < MERGE_AFTER_DOCS) return;
    sinceMerge = 0;
    await deps.index.mergeFts({ pause: yieldToLoop });
  }

  return {
    /**
     * Processes queued documents until none is left (CLI `train --wait`, tests), or until the embeddings
     * server is away: then the rest stays queued with its reason, and the next call resumes it.
     */
    async runUntilIdle(opts: { merge?: boolean; reindex?: boolean } = {}): Promise<void> {
      while ((await step()) === "done") {}
      // a bulk load training as it goes leaves both to its last call: the check alone is a query per deployment
      if (opts.reindex !== false) await reindexKeywordsIfDue(true);
      if (opts.merge !== false) await mergeIfDue();
    },
    /** Background loop for the server: resumes interrupted work, then waits for new work. */
    start(pollMs = 500, retryFirstMs = WAIT_FIRST_MS): void {
      if (loop) return;
      stopped = false;
      loop = (async () => {
        try {
          // a crash's documents go back to the queue, their partial rows removed (PostgreSQL: once their lease ran out)
          const n = await store.recoverInterrupted(worker);
          // parts of uploads that died before their document row was written
          await deps.documents.deleteOrphanParts(ORPHAN_AGE_MS);
          if (n > 0) deps.log.info("resuming interrupted training", { documents: n });
        } catch (e) {
          deps.log.error("resuming interrupted training failed", { error: String((e as Error).message ?? e) });
        }
        while (!stopped) {
          const did = await step().catch((e) => {
            deps.log.error("training loop error", { error: String(e) });
            return "idle" as const;
          });
          if (did === "idle") {
            await reindexKeywordsIfDue().catch((e) => deps.log.error("keyword re-index failed", { error: String(e) }));
            await mergeIfDue().catch((e) => deps.log.error("index merge failed", { error: String(e) }));
          }
          const ms = did === "deferred" ? retryDelayMs(waits, { baseMs: retryFirstMs, maxMs: WAIT_MAX_MS }) : did === "idle" ? pollMs : 0;
          if (ms > 0) await pause.sleep(ms);
        }
      })();
    },
    /**
     * Small documents read by a bulk load that trains as it goes, with their prepared lines in hand: analyzed (or
     * taken as the parse worker analyzed them) and embedded here, then stored already trained in ONE transaction
     * (TrainingStore.insertTrained): no part written, queued, claimed and read back. Throws when they can't be (no
     * embedder, the embeddings server away): nothing is stored then, and the caller stores them queued instead.
     */
    async storeTrained(items: { record: NewDocument; lines: string }[]): Promise<DocumentRecord[]> {
      const embedder = await deps.embedder();
      pinnedNow = new Map();
      const ready: { record: NewDocument; chunks: NewChunk[] }[] = [];
      for (const [i, { record, lines }] of items.entries()) {
        if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToLoop();
        ready.push({ record, chunks: await chunksOf({ ...record, attempts: 0 }, readPreparedLines(lines), embedder, true) });
      }
      const docs = await store.insertTrained(worker, ready, embedder?.id ?? null);
      sinceMerge += docs.length;
      notify();
      return docs;
    },
    /** New work: start on it now instead of at the next poll (kept if the loop is busy, never lost). */
    kick(): void {
      checkedAt = 0;
      pause.wake();
    },
    async stop(): Promise<void> {
      stopped = true;
      pause.wake();
      await loop;
      loop = null;
    },
    onChange(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type TrainingWorker = ReturnType<typeof createTrainingWorker>;
