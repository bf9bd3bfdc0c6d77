import type { NewChunk } from "../contract/chunk-index.contract.ts";
import { trainingStatusOf } from "../contract/deployments.contract.ts";
import { byCreation, type DocumentRecord, type DocumentRow, replaceable, toDocumentRecord } from "../contract/documents.contract.ts";
import type { TrainingStore } from "../contract/training.contract.ts";
import type { ChunkIndexWriter } from "./chunk-index.sqlite.ts";
import { type Db, flushWal, unpromisedTransaction } from "./db.ts";
import { setTrainingStatus } from "./repos/deployments.sqlite.ts";
import {
  deferQueued,
  deleteDocumentRow,
  documentById,
  documentsNamed,
  insertRow,
  markCompleted,
  markFailed,
  pendingDeployments,
  setProgress,
  statusCounts,
} from "./repos/documents.sqlite.ts";

/**
 * The training queue's writes on SQLite, each one transaction. One process owns a data dir (data-dir-lock.ts),
 * so a claim needs no lease here: "still mine" is "still processing", and a restart requeues whatever a crash
 * left processing.
 */
export function createSqliteTrainingStore(db: Db, index: ChunkIndexWriter): TrainingStore {
  const stillMine = (id: string) => documentById(db, id)?.status === "processing";
  const refresh = (deploymentId: string) => setTrainingStatus(db, deploymentId, trainingStatusOf(statusCounts(db, deploymentId)));

  /**
   * Inside a transaction: swap out replaced documents of the same name (a kill -9 keeps old or new, never half).
   * A key push replaces only what was pushed with a key (replaceable): never the owner's documents.
   */
  function replaceOlder(doc: DocumentRecord): string[] {
    if (!doc.replaceOnTrain) return [];
    const gone: string[] = [];
    for (const old of documentsNamed(db, doc.deploymentId, doc.name)) {
      if (old.id === doc.id || old.createdAt > doc.createdAt || !replaceable(doc, old)) continue;
      index.deleteDocument(old.id);
      deleteDocumentRow(db, old.id);
      gone.push(old.id);
    }
    return gone;
  }

  function cacheVectors(embedderId: string | null, chunks: NewChunk[]): void {
    if (embedderId) for (const c of chunks) if (c.vector) index.cacheVector(embedderId, c.textHash, c.vector);
  }

  /** Inside a transaction: a small document's chunks, keyword rows and vectors, and `completed` in its chunks' language. */
  function indexCompleted(doc: DocumentRecord, chunks: NewChunk[], embedderId: string | null): void {
    index.insert(doc.deploymentId, doc.id, chunks);
    cacheVectors(embedderId, chunks);
    markCompleted(
      db,
      doc.id,
      chunks.length,
      chunks.map((c) => c.lang),
    );
  }

  const immediate = <T>(fn: () => T): T => db.transaction(fn).immediate();

  return {
    async claim(_worker, limit) {
      // the oldest queued documents in one statement (bulk loads: not one per document), and their deployments'
      // status, in one commit (each commit is an fsync)
      return immediate(() => {
        const claimed = db
          .query<DocumentRow, [number, number]>(
            `UPDATE documents SET status = 'processing', attempts = attempts + 1, updated_at = ?
              WHERE id IN (SELECT id FROM documents WHERE status = 'queued' ORDER BY queued_at, id LIMIT ?) RETURNING *`,
          )
          .all(Date.now(), limit)
          .map(toDocumentRecord)
          .sort(byCreation);
        for (const d of new Set(claimed.map((c) => c.deploymentId))) refresh(d);
        return claimed;
      });
    },
    async renew(_worker, ids) {
      return ids.filter((id) => !stillMine(id));
    },
    async completeBatch(_worker, items, embedderId) {
      return immediate(() => {
        let done: string[] = [];
        for (const { doc, chunks } of items) {
          const current = documentById(db, doc.id);
          if (current?.status !== "processing") continue; // removed or re-queued meanwhile
          // a newer upload of a name in the same batch replaces one completed just before it: that one isn't done
          const gone = new Set(replaceOlder(current));
          done = done.filter((id) => !gone.has(id));
          index.deleteDocument(doc.id);
          indexCompleted(doc, chunks, embedderId);
          done.push(doc.id);
        }
        for (const d of new Set(items.map((i) => i.doc.deploymentId))) refresh(d);
        return done;
      });
    },
    async insertTrained(_worker, items, embedderId) {
      return immediate(() => {
        const out = items.map(({ record, chunks }) => {
          const doc = insertRow(db, { ...record, chunks: undefined });
          replaceOlder(doc);
          indexCompleted(doc, chunks, embedderId);
          return documentById(db, doc.id) as DocumentRecord;
        });
        for (const d of new Set(items.map((i) => i.record.deploymentId))) refresh(d);
        return out;
      });
    },
    async clearIndex(_worker, documentId) {
      return immediate(() => {
        if (!stillMine(documentId)) return false;
        index.deleteDocument(documentId);
        return true;
      });
    },
    async stage(_worker, doc, seq, parts, chunks, embedderId) {
      return unpromisedTransaction(db, () => {
        if (!stillMine(doc.id)) return null;
        const ids = index.insertStaged(doc.id, chunks);
        cacheVectors(embedderId, chunks);
        setProgress(db, doc.id, seq + 1, parts);
        return ids;
      });
    },
    async publish(_worker, doc, limit) {
      return unpromisedTransaction(db, () => (stillMine(doc.id) ? index.publishStaged(doc.id, doc.deploymentId, limit) : 0));
    },
    async finishLarge(_worker, doc, vectors, chunkCount) {
      // the staged parts' pages reach the disk off the event loop first; the commit then has little to fsync
      await flushWal(db);
      return immediate(() => {
        const current = documentById(db, doc.id);
        if (current?.status !== "processing") return false;
        replaceOlder(current);
        index.insertVectors(doc.deploymentId, vectors);
        markCompleted(db, doc.id, chunkCount);
        refresh(doc.deploymentId);
        return true;
      });
    },
    async fail(_worker, doc, code, message) {
      immediate(() => {
        if (!stillMine(doc.id)) return;
        markFailed(db, doc.id, code, message);
        refresh(doc.deploymentId);
      });
    },
    async defer(_worker, doc, code, message) {
      immediate(() => {
        deferQueued(db, doc.id, code, message);
        refresh(doc.deploymentId);
      });
    },
    async removeDocument(documentId, deploymentId) {
      immediate(() => {
        index.deleteDocument(documentId);
        deleteDocumentRow(db, documentId);
        refresh(deploymentId);
      });
    },
    async refreshStatus(deploymentId) {
      refresh(deploymentId);
    },
    async recoverInterrupted() {
      // an interrupted large document may have staged or partly published rows: they go before it is retrained
      const interrupted = db
        .query<{ id: string }, []>("SELECT id FROM documents WHERE status = 'processing'")
        .all()
        .map((r) => r.id);
      for (const id of interrupted) immediate(() => index.deleteDocument(id));
      const n = db.run("UPDATE documents SET status = 'queued', updated_at = ? WHERE status = 'processing'", [Date.now()]).changes;
      for (const d of pendingDeployments(db)) refresh(d);
      return n;
    },
  };
}
