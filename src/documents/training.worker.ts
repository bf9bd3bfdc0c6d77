import { createHash } from "node:crypto";
import { chunkDocument } from "../ingest/chunk.ts";
import { readPreparedLines } from "../ingest/prepare.ts";
import type { ChunkDraft, ParsedDocument } from "../ingest/types.ts";
import type { Logger } from "../log.ts";
import { retryDelayMs } from "../mail/backoff.ts";
import type { Embedder } from "../rag/embedder.ts";
import { type Db, unpromisedTransaction } from "../store/db.ts";
import type { ChunkIndexRepo, NewChunk } from "../store/repos/chunk-index.repo.ts";
import type { DeploymentsRepo } from "../store/repos/deployments.repo.ts";
import type { DocumentRecord, DocumentsRepo } from "../store/repos/documents.repo.ts";

const MAX_ATTEMPTS = 3;
/** After an embeddings-server outage the queue is retried after this long, doubling up to the maximum. */
const WAIT_FIRST_MS = 1000;
const WAIT_MAX_MS = 30_000;

/** The code of a failure that means "the model server is away", not "this document is bad" (model-server.ts). */
const isServerAway = (e: unknown) => (e as { code?: string } | null)?.code === "model_server_unavailable";
/** Small documents are trained together, one transaction per batch (bulk loads). */
const BATCH_DOCS = 64;
const BATCH_BYTES = 512 * 1024;
/** After this many documents, the FTS index is merged when the queue runs dry. */
const MERGE_AFTER_DOCS = 100;
/** Upload parts without a document row after this long were left by a crash, not by an upload still running. */
const ORPHAN_AGE_MS = 24 * 3600 * 1000;
/** Staged chunks moved into their deployment per short transaction. */
const PUBLISH_BATCH = 100;
const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

export function sourceName(name: string): string {
  return name.replace(/\.(pdf|docx|txt|csv|tsv|md)$/i, "");
}

export const textHash = (t: string) => createHash("sha256").update(t).digest("hex");

export interface TrainingDeps {
  db: Db;
  documents: DocumentsRepo;
  deployments: DeploymentsRepo;
  index: ChunkIndexRepo;
  embedder: () => Promise<Embedder | null>;
  log: Logger;
  chunking: { maxTokens: number; overlapTokens: number };
}

/** Recomputes a deployment's training status from its documents' statuses. */
export function refreshDeploymentStatus(deps: Pick<TrainingDeps, "documents" | "deployments">, deploymentId: string): void {
  const c = deps.documents.statusCounts(deploymentId);
  const status = c.processing > 0 ? "processing" : c.queued > 0 ? "queued" : c.completed > 0 ? "completed" : c.failed > 0 ? "failed" : "none";
  deps.deployments.setTrainingStatus(deploymentId, status);
}

/**
 * The persistent training queue's consumer. Each document is chunked and embedded outside any transaction,
 * then its chunks, FTS rows and vectors (and the swap-out of a replaced document) are written in ONE
 * transaction: a kill -9 leaves either the old index or the new one, never half of it.
 */
export function createTrainingWorker(deps: TrainingDeps) {
  const listeners = new Set<() => void>();
  let running = false;
  let stopped = false;
  let wake: (() => void) | null = null;

  const notify = () => {
    for (const l of listeners) l();
  };

  async function embedAll(embedder: Embedder, texts: { text: string; hash: string }[]): Promise<Float32Array[]> {
    const out: (Float32Array | null)[] = texts.map((t) => deps.index.cachedVector(embedder.id, t.hash));
    const missing = out.map((v, i) => (v ? -1 : i)).filter((i) => i >= 0);
    const unique = new Map<string, number[]>();
    for (const i of missing) {
      const t = texts[i] as { text: string; hash: string };
      unique.set(t.hash, [...(unique.get(t.hash) ?? []), i]);
    }
    // One call: the embedder batches and bounds concurrency itself (a remote server sees its configured batch
    // size with requests in flight back to back; an ONNX model its own batch size).
    const order = [...unique.keys()];
    const vectors = await embedder.embedDocuments(order.map((h) => (texts[(unique.get(h) as number[])[0] as number] as { text: string }).text));
    order.forEach((h, j) => {
      const v = vectors[j] as Float32Array;
      for (const i of unique.get(h) as number[]) out[i] = v;
    });
    return out as Float32Array[];
  }

  /** A document's chunk drafts, part by part: prepared at upload by the parse pool (or, stored by an older version, chunked now). */
  function partCount(doc: DocumentRecord): number {
    return deps.documents.parsed(doc.id) !== null ? 1 : deps.documents.partCount(doc.id, "chunks");
  }
  function draftsOf(doc: DocumentRecord, seq: number): ChunkDraft[] {
    const legacy = deps.documents.parsed(doc.id);
    if (legacy !== null) return chunkDocument(JSON.parse(legacy) as ParsedDocument, deps.chunking);
    const text = deps.documents.partText(doc.id, "chunks", seq);
    if (text === null) throw new Error("prepared content missing");
    return readPreparedLines(text);
  }

  async function toChunks(doc: DocumentRecord, drafts: ChunkDraft[], embedder: Embedder | null): Promise<NewChunk[]> {
    const source = sourceName(doc.name);
    const hashed = drafts.map((d) => ({ text: d.text, hash: textHash(d.text) }));
    const vectors = embedder ? await embedAll(embedder, hashed) : [];
    return drafts.map((d, i) => ({
      ord: d.ord,
      source,
      text: d.text,
      headingPath: d.headingPath,
      pageStart: d.pageStart,
      pageEnd: d.pageEnd,
      rowStart: d.rowStart,
      rowEnd: d.rowEnd,
      tokenCount: d.tokenCount,
      textHash: (hashed[i] as { hash: string }).hash,
      vector: vectors[i],
    }));
  }

  /** Inside a transaction: swap out replaced documents of the same name (a kill -9 keeps old or new, never half). */
  function replaceOlder(doc: DocumentRecord): void {
    if (!doc.replaceOnTrain) return;
    for (const old of deps.documents.findByName(doc.deploymentId, doc.name)) {
      if (old.id === doc.id || old.createdAt > doc.createdAt) continue;
      deps.index.deleteDocument(old.id);
      deps.documents.deleteRow(old.id);
    }
  }

  function cacheVectors(embedder: Embedder | null, chunks: NewChunk[]): void {
    if (embedder) for (const c of chunks) if (c.vector) deps.index.cacheVector(embedder.id, c.textHash, c.vector);
  }

  /** Small documents: chunks, FTS rows and vectors of the whole batch in ONE transaction. */
  async function processSmall(docs: DocumentRecord[], embedder: Embedder | null): Promise<void> {
    const ready: { doc: DocumentRecord; chunks: NewChunk[] }[] = [];
    for (const doc of docs) {
      try {
        ready.push({ doc, chunks: await toChunks(doc, draftsOf(doc, 0), embedder) });
      } catch (e) {
        fail(doc, e);
      }
    }
    deps.db
      .transaction(() => {
        for (const { doc, chunks } of ready) {
          const current = deps.documents.get(doc.id);
          if (current?.status !== "processing") continue; // removed or re-queued meanwhile
          replaceOlder(current);
          deps.index.deleteDocument(doc.id);
          deps.index.insert(doc.deploymentId, doc.id, chunks);
          cacheVectors(embedder, chunks);
          deps.documents.markCompleted(doc.id, chunks.length);
        }
        for (const d of new Set(ready.map((r) => r.doc.deploymentId))) refreshDeploymentStatus(deps, d);
      })
      .immediate();
  }

  /**
   * A large document: its chunks are written part by part in short transactions where no search sees them
   * (staged), with the event loop free in between; then moved into the deployment in short batches, and
   * marked completed (with its vectors, and the swap-out of a replaced document) in one final transaction.
   * A crash midway leaves it "processing": on restart its rows are removed and it is trained again.
   */
  async function processLarge(doc: DocumentRecord, parts: number, embedder: Embedder | null): Promise<void> {
    const stillMine = () => deps.documents.get(doc.id)?.status === "processing";
    deps.db.transaction(() => deps.index.deleteDocument(doc.id)).immediate();
    const vectors: { id: number; vector: Float32Array }[] = [];
    let count = 0;
    for (let seq = 0; seq < parts; seq++) {
      const chunks = await toChunks(doc, draftsOf(doc, seq), embedder);
      const written = unpromisedTransaction(deps.db, () => {
        if (!stillMine()) return false;
        const ids = deps.index.insertStaged(doc.id, chunks);
        cacheVectors(embedder, chunks);
        for (const [i, c] of chunks.entries()) if (c.vector) vectors.push({ id: ids[i] as number, vector: c.vector });
        deps.documents.setProgress(doc.id, seq + 1, parts);
        return true;
      });
      if (!written) return;
      count += chunks.length;
      notify();
      await yieldToLoop();
    }
    for (;;) {
      const moved = unpromisedTransaction(deps.db, () => (stillMine() ? deps.index.publishStaged(doc.id, doc.deploymentId, PUBLISH_BATCH) : 0));
      if (moved === 0) break;
      await yieldToLoop();
    }
    deps.db.transaction(() => {
      const current = deps.documents.get(doc.id);
      if (current?.status !== "processing") return;
      replaceOlder(current);
      deps.index.insertVectors(doc.deploymentId, vectors);
      deps.documents.markCompleted(doc.id, count);
      refreshDeploymentStatus(deps, doc.deploymentId);
    }).immediate();
  }

  let waits = 0;
  let deferred = false;

  /** A failure fails its document, unless it only means the embeddings server is away: then the document keeps
   * its place in the queue, says why it waits, and is retried when the server answers again. */
  function fail(doc: DocumentRecord, e: unknown): void {
    if (isServerAway(e)) {
      deferred = true;
      deps.log.warn("embeddings server unavailable; training waits", { document: doc.id, error: String((e as Error).message) });
      deps.documents.deferQueued(doc.id, "waiting_for_embeddings", `Waiting for the embeddings server: ${(e as Error).message}`);
      refreshDeploymentStatus(deps, doc.deploymentId);
      return;
    }
    const code = (e as { code?: string }).code ?? "training_failed";
    deps.log.warn("training failed", { document: doc.id, code, error: String((e as Error).message) });
    deps.documents.markFailed(doc.id, code, (e as Error).message || "Training failed.");
    refreshDeploymentStatus(deps, doc.deploymentId);
  }

  let sinceMerge = 0;
  /** Claims a batch of queued documents and trains them: small ones many per transaction, large ones staged. */
  async function step(): Promise<"done" | "idle" | "deferred"> {
    const claimed = deps.documents.claimBatch(BATCH_DOCS);
    if (claimed.length === 0) return "idle";
    deferred = false;
    for (const d of new Set(claimed.map((c) => c.deploymentId))) refreshDeploymentStatus(deps, d);
    let embedder: Embedder | null;
    try {
      embedder = await deps.embedder();
    } catch (e) {
      for (const doc of claimed) fail(doc, e);
      notify();
      return finish();
    }
    let small: DocumentRecord[] = [];
    let bytes = 0;
    const flushSmall = async () => {
      const batch = small;
      small = [];
      bytes = 0;
      if (batch.length === 0) return;
      try {
        await processSmall(batch, embedder);
      } catch (e) {
        for (const d of batch) if (deps.documents.get(d.id)?.status === "processing") fail(d, e);
      }
    };
    for (const doc of claimed) {
      if (doc.attempts > MAX_ATTEMPTS) {
        fail(doc, Object.assign(new Error("Training was interrupted repeatedly on this document."), { code: "document_unreadable" }));
        continue;
      }
      const parts = partCount(doc);
      if (parts <= 1) {
        small.push(doc);
        bytes += doc.size;
        if (bytes >= BATCH_BYTES) await flushSmall();
        continue;
      }
      await flushSmall();
      try {
        await processLarge(doc, parts, embedder);
      } catch (e) {
        fail(doc, e);
      }
    }
    await flushSmall();
    sinceMerge += claimed.length;
    notify();
    return finish();
  }

  /** A step that had to defer documents backs off longer each time; one that didn't resets the backoff. */
  function finish(): "done" | "deferred" {
    waits = deferred ? waits + 1 : 0;
    return deferred ? "deferred" : "done";
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
    async runUntilIdle(opts: { merge?: boolean } = {}): Promise<void> {
      while ((await step()) === "done") {}
      if (opts.merge !== false) await mergeIfDue();
    },
    /** Background loop for the server: resumes interrupted work, then waits for new work. */
    start(pollMs = 500, retryFirstMs = WAIT_FIRST_MS): void {
      if (running) return;
      running = true;
      stopped = false;
      // an interrupted large document may have staged or partly published rows: they go before it is retrained
      for (const id of deps.documents.interruptedIds()) deps.db.transaction(() => deps.index.deleteDocument(id)).immediate();
      const n = deps.documents.requeueInterrupted();
      // parts of uploads that died before their document row was written
      deps.documents.deleteOrphanParts(ORPHAN_AGE_MS);
      if (n > 0) deps.log.info("resuming interrupted training", { documents: n });
      for (const d of deps.documents.pendingDeployments()) refreshDeploymentStatus(deps, d);
      void (async () => {
        while (!stopped) {
          const did = await step().catch((e) => {
            deps.log.error("training loop error", { error: String(e) });
            return "idle" as const;
          });
          if (did === "idle") await mergeIfDue().catch((e) => deps.log.error("index merge failed", { error: String(e) }));
          const pause = did === "deferred" ? retryDelayMs(waits, { baseMs: retryFirstMs, maxMs: WAIT_MAX_MS }) : did === "idle" ? pollMs : 0;
          if (pause > 0) await new Promise<void>((r) => {
            wake = r;
            setTimeout(r, pause);
          });
          wake = null;
        }
        running = false;
      })();
    },
    kick(): void {
      wake?.();
    },
    async stop(): Promise<void> {
      stopped = true;
      wake?.();
      while (running) await Bun.sleep(10);
    },
    onChange(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type TrainingWorker = ReturnType<typeof createTrainingWorker>;
