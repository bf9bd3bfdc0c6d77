import { createHash } from "node:crypto";
import { chunkDocument } from "../ingest/chunk.ts";
import type { ParsedDocument } from "../ingest/types.ts";
import type { Logger } from "../log.ts";
import { retryDelayMs } from "../mail/backoff.ts";
import type { Embedder } from "../rag/embedder.ts";
import type { Db } from "../store/db.ts";
import type { ChunkIndexRepo, NewChunk } from "../store/repos/chunk-index.repo.ts";
import type { DeploymentsRepo } from "../store/repos/deployments.repo.ts";
import type { DocumentRecord, DocumentsRepo } from "../store/repos/documents.repo.ts";

const MAX_ATTEMPTS = 3;
/** After an embeddings-server outage the queue is retried after this long, doubling up to the maximum. */
const WAIT_FIRST_MS = 1000;
const WAIT_MAX_MS = 30_000;

/** The code of a failure that means "the model server is away", not "this document is bad" (model-server.ts). */
const isServerAway = (e: unknown) => (e as { code?: string } | null)?.code === "model_server_unavailable";

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

  async function processOne(doc: DocumentRecord): Promise<void> {
    const parsedText = deps.documents.parsed(doc.id);
    if (!parsedText) throw new Error("parsed content missing");
    const parsed = JSON.parse(parsedText) as ParsedDocument;
    const drafts = chunkDocument(parsed, deps.chunking);
    const source = sourceName(doc.name);
    const hashed = drafts.map((d) => ({ text: d.text, hash: textHash(d.text) }));
    const embedder = await deps.embedder();
    const vectors = embedder ? await embedAll(embedder, hashed) : [];
    const chunks: NewChunk[] = drafts.map((d, i) => ({
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
    deps.db.transaction(() => {
      const current = deps.documents.get(doc.id);
      if (current?.status !== "processing") return; // removed or re-queued meanwhile
      if (current.replaceOnTrain) {
        for (const old of deps.documents.findByName(doc.deploymentId, doc.name)) {
          if (old.id === doc.id || old.createdAt > doc.createdAt) continue;
          deps.index.deleteDocument(old.id);
          deps.documents.deleteRow(old.id);
        }
      }
      deps.index.deleteDocument(doc.id);
      deps.index.insert(doc.deploymentId, doc.id, chunks);
      if (embedder) for (const [i, c] of chunks.entries()) if (c.vector) deps.index.cacheVector(embedder.id, (hashed[i] as { hash: string }).hash, c.vector);
      deps.documents.markCompleted(doc.id, chunks.length);
      refreshDeploymentStatus(deps, doc.deploymentId);
    }).immediate();
  }

  let waits = 0;

  async function step(): Promise<"done" | "idle" | "deferred"> {
    const doc = deps.documents.claimNext();
    if (!doc) return "idle";
    refreshDeploymentStatus(deps, doc.deploymentId);
    try {
      if (doc.attempts > MAX_ATTEMPTS) throw Object.assign(new Error("Training was interrupted repeatedly on this document."), { code: "document_unreadable" });
      await processOne(doc);
      waits = 0;
    } catch (e) {
      if (isServerAway(e)) {
        // Nothing is wrong with the document: it keeps its place in the queue, says why it waits, and is
        // retried when the server answers again.
        waits++;
        deps.log.warn("embeddings server unavailable; training waits", { document: doc.id, error: String((e as Error).message) });
        deps.documents.deferQueued(doc.id, "waiting_for_embeddings", `Waiting for the embeddings server: ${(e as Error).message}`);
        refreshDeploymentStatus(deps, doc.deploymentId);
        notify();
        return "deferred";
      }
      const code = (e as { code?: string }).code ?? "training_failed";
      deps.log.warn("training failed", { document: doc.id, code, error: String((e as Error).message) });
      deps.documents.markFailed(doc.id, code, (e as Error).message || "Training failed.");
      refreshDeploymentStatus(deps, doc.deploymentId);
    }
    notify();
    return "done";
  }

  return {
    /**
     * Processes queued documents until none is left (CLI `train --wait`, tests), or until the embeddings
     * server is away: then the rest stays queued with its reason, and the next call resumes it.
     */
    async runUntilIdle(): Promise<void> {
      while ((await step()) === "done") {}
    },
    /** Background loop for the server: resumes interrupted work, then waits for new work. */
    start(pollMs = 500, retryFirstMs = WAIT_FIRST_MS): void {
      if (running) return;
      running = true;
      stopped = false;
      const n = deps.documents.requeueInterrupted();
      if (n > 0) deps.log.info("resuming interrupted training", { documents: n });
      for (const d of deps.documents.pendingDeployments()) refreshDeploymentStatus(deps, d);
      void (async () => {
        while (!stopped) {
          const did = await step().catch((e) => {
            deps.log.error("training loop error", { error: String(e) });
            return "idle" as const;
          });
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
