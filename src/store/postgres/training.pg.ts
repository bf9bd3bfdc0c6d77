import type { SQL } from "bun";
import { trainingStatusOf } from "../contract/deployments.contract.ts";
import { byCreation, type DocumentRecord, type DocumentRow, toDocumentRecord } from "../contract/documents.contract.ts";
import type { NewChunk } from "../contract/chunk-index.contract.ts";
import type { TrainingStore } from "../contract/training.contract.ts";
import type { PgChunkIndex } from "./chunk-index.pg.ts";
import { setTrainingStatus } from "./repos/deployments.pg.ts";
import { insertRow, statusCounts } from "./repos/documents.pg.ts";
import { rows } from "./repos/values.ts";

type Row = DocumentRow & { lease_owner: string | null };

/** Rows in deployment order: the chunk index's keyword locks are per deployment and taken in this order. */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byDeployment = <R extends { id: string; deployment_id: string }>(found: R[]) =>
  [...found].sort((a, b) => cmp(a.deployment_id, b.deployment_id) || cmp(a.id, b.id));

/**
 * The training queue's writes on PostgreSQL, each one transaction, shared by every node. A claim takes documents with FOR UPDATE SKIP LOCKED, so nodes claiming at once get
 * disjoint sets, and records the worker and until when its lease holds (documents.lease_owner / lease_until).
 * A document whose lease ran out (its node died or stalled) is claimed again by whoever claims next, its partial
 * index rows removed in that claiming transaction. Every write first locks the document and checks it is still
 * `processing` under this worker's lease ("still mine"); a document removed, re-queued or taken over meanwhile
 * is left alone.
 *
 * Lock order, the same in every transaction here so none deadlocks another: document rows (by id), then the
 * chunk index's per-deployment keyword locks, then deployment rows (by id).
 */
export function createPgTrainingStore(sql: SQL, index: PgChunkIndex): TrainingStore {
  /** Status from the documents' statuses, as the SQLite store computes it. */
  async function refresh(tx: SQL, deploymentIds: Iterable<string>): Promise<void> {
    for (const id of [...new Set(deploymentIds)].sort()) await setTrainingStatus(tx, id, trainingStatusOf(await statusCounts(tx, id)));
  }

  /** Locks these documents (in id order) and returns those still processing under `worker`'s claim. */
  async function mine(tx: SQL, worker: string, ids: string[]): Promise<Map<string, DocumentRecord>> {
    if (ids.length === 0) return new Map();
    const locked = await rows<Row>(tx`SELECT * FROM documents WHERE id = ANY(${sql.array(ids, "TEXT")}::text[]) ORDER BY id FOR UPDATE`);
    return new Map(locked.filter((r) => r.status === "processing" && r.lease_owner === worker).map((r) => [r.id, toDocumentRecord(r)]));
  }

  /**
   * Locks mine plus, for those that replace older documents of the same name, those older ones (all in id order:
   * a node completing the older one meanwhile can't deadlock with us). Returns mine.
   */
  async function mineWithOlder(tx: SQL, worker: string, docs: DocumentRecord[]): Promise<Map<string, DocumentRecord>> {
    const replacing = docs.filter((d) => d.replaceOnTrain);
    await tx`SELECT id FROM documents WHERE id = ANY(${sql.array(
      docs.map((d) => d.id),
      "TEXT",
    )}::text[])
      OR (deployment_id, name) IN (SELECT * FROM unnest(${sql.array(
        replacing.map((d) => d.deploymentId),
        "TEXT",
      )}::text[], ${sql.array(
        replacing.map((d) => d.name),
        "TEXT",
      )}::text[]))
      ORDER BY id FOR UPDATE`;
    return mine(
      tx,
      worker,
      docs.map((d) => d.id),
    );
  }

  /** Inside a transaction: swap out older documents of the same name (a kill -9 keeps old or new, never half). */
  async function replaceOlder(tx: SQL, doc: DocumentRecord): Promise<string[]> {
    if (!doc.replaceOnTrain) return [];
    // a key push replaces only what was pushed with a key (documents.contract.ts replaceable)
    const older = await rows<{ id: string }>(tx`SELECT id FROM documents WHERE deployment_id = ${doc.deploymentId} AND name = ${doc.name}
      AND id <> ${doc.id} AND created_at <= ${doc.createdAt} AND (${doc.origin}::text = 'owner' OR origin = 'key') ORDER BY created_at`);
    for (const old of older) await deleteDocument(tx, old.id);
    return older.map((o) => o.id);
  }

  /** A document's index rows (keyword rows first: they have no foreign key), parts and row. */
  async function deleteDocument(tx: SQL, id: string): Promise<void> {
    await index.deleteDocument(id, tx);
    await tx`DELETE FROM document_parts WHERE document_id = ${id}`;
    await tx`DELETE FROM documents WHERE id = ${id}`;
  }

  const markCompleted = (tx: SQL, id: string, chunkCount: number) =>
    tx`UPDATE documents SET status = 'completed', chunk_count = ${chunkCount}, progress_done = progress_total, error_code = NULL,
      error_message = NULL, lang = (SELECT c.lang FROM chunks c WHERE c.document_id = documents.id AND c.lang IS NOT NULL GROUP BY c.lang ORDER BY count(*) DESC, c.lang LIMIT 1), lease_owner = NULL, lease_until = NULL, updated_at = ${Date.now()} WHERE id = ${id}`;

  /** A claimed batch completed on `tx` (completeBatch, insertTrained): see TrainingStore.completeBatch. */
  async function complete(tx: SQL, worker: string, items: { doc: DocumentRecord; chunks: NewChunk[] }[], embedderId: string | null) {
    const held = await mineWithOlder(
      tx,
      worker,
      items.map((i) => i.doc),
    );
    // the rest were removed, re-queued or taken over meanwhile
    let mineNow = items.filter((i) => held.has(i.doc.id));
    // older documents of the same name go (in this batch too: a newer upload of the name replaces an older one);
    // deleting them takes their deployment's keyword lock, so deployments are visited in the lock order
    // (a stable sort: creation order within a deployment, so the newest upload of a name is the one that stays)
    const replaced = new Set<string>();
    for (const { doc } of [...mineNow].sort((x, y) => cmp(x.doc.deploymentId, y.doc.deploymentId)))
      if (!replaced.has(doc.id)) for (const id of await replaceOlder(tx, held.get(doc.id) as DocumentRecord)) replaced.add(id);
    mineNow = mineNow.filter((i) => !replaced.has(i.doc.id));
    // rows a previous attempt left (a document claimed again) go first; a fresh claim has none
    const ids = mineNow.map((i) => i.doc.id);
    const leftovers = new Set(
      ids.length === 0
        ? []
        : (
            await rows<{ document_id: string }>(
              tx`SELECT DISTINCT document_id FROM chunks WHERE document_id = ANY(${sql.array(ids, "TEXT")}::text[])`,
            )
          ).map((r) => r.document_id),
    );
    // keyword locks are per deployment: take them in deployment order, one insert per deployment
    const byDep = new Map<string, typeof mineNow>();
    for (const item of [...mineNow].sort((x, y) => cmp(x.doc.deploymentId, y.doc.deploymentId)))
      byDep.set(item.doc.deploymentId, [...(byDep.get(item.doc.deploymentId) ?? []), item]);
    for (const [deploymentId, group] of byDep) {
      for (const { doc } of group) if (leftovers.has(doc.id)) await index.deleteDocument(doc.id, tx);
      await index.insertMany(
        deploymentId,
        group.map((g) => ({ documentId: g.doc.id, chunks: g.chunks })),
        tx,
      );
    }
    if (embedderId)
      await index.cacheVectors(
        embedderId,
        mineNow.flatMap((i) => i.chunks),
        tx,
      );
    if (mineNow.length > 0)
      await tx`UPDATE documents d SET status = 'completed', chunk_count = u.n, progress_done = progress_total, error_code = NULL,
          error_message = NULL, lang = (SELECT c.lang FROM chunks c WHERE c.document_id = d.id AND c.lang IS NOT NULL GROUP BY c.lang ORDER BY count(*) DESC, c.lang LIMIT 1), lease_owner = NULL, lease_until = NULL, updated_at = ${Date.now()}
        FROM unnest(${sql.array(ids, "TEXT")}::text[], ${sql.array(
          mineNow.map((i) => i.chunks.length),
          "INT4",
        )}::int[]) AS u(id, n) WHERE d.id = u.id`;
    const done = new Set(ids);
    await refresh(
      tx,
      items.map((i) => i.doc.deploymentId),
    );
    return items.map((i) => i.doc.id).filter((id) => done.has(id));
  }

  /** Staging and publishing are redone after a crash, so their commits need not wait for the disk (SQLite: unpromisedTransaction). */
  const unsynced = (tx: SQL) => tx`SET LOCAL synchronous_commit = off`;

  return {
    async claim(worker, limit, leaseMs) {
      return sql.begin(async (tx) => {
        const at = Date.now();
        // a dead worker's documents first (their work is the oldest), then the queue in order; two statements so
        // each walks its own index (documents_status, documents_queue) instead of sorting every queued row
        type Picked = { id: string; status: string; deployment_id: string };
        const expired = await rows<Picked>(tx`SELECT id, status, deployment_id FROM documents
          WHERE status = 'processing' AND (lease_until IS NULL OR lease_until < ${at})
          ORDER BY queued_at NULLS FIRST, id LIMIT ${limit} FOR UPDATE SKIP LOCKED`);
        const queued =
          expired.length < limit
            ? await rows<Picked>(tx`SELECT id, status, deployment_id FROM documents WHERE status = 'queued'
                ORDER BY queued_at, id LIMIT ${limit - expired.length} FOR UPDATE SKIP LOCKED`)
            : [];
        const picked = [...expired, ...queued];
        if (picked.length === 0) return [];
        // a dead worker's partial rows (staged, partly published or written) go before the document is trained again
        for (const p of byDeployment(picked.filter((p) => p.status === "processing"))) await index.deleteDocument(p.id, tx);
        const updated = await rows<Row>(tx`UPDATE documents SET status = 'processing', attempts = attempts + 1, lease_owner = ${worker},
            lease_until = ${at + leaseMs}, updated_at = ${at}
          WHERE id = ANY(${sql.array(
            picked.map((p) => p.id),
            "TEXT",
          )}::text[]) RETURNING *`);
        const claimed = updated.map(toDocumentRecord).sort(byCreation);
        await refresh(
          tx,
          claimed.map((d) => d.deploymentId),
        );
        return claimed;
      });
    },

    async renew(worker, ids, leaseMs) {
      if (ids.length === 0) return [];
      const held = await rows<{ id: string }>(sql`UPDATE documents SET lease_until = ${Date.now() + leaseMs}
        WHERE id = ANY(${sql.array(ids, "TEXT")}::text[]) AND status = 'processing' AND lease_owner = ${worker} RETURNING id`);
      const still = new Set(held.map((r) => r.id));
      return ids.filter((id) => !still.has(id));
    },

    async completeBatch(worker, items, embedderId) {
      if (items.length === 0) return [];
      return sql.begin((tx) => complete(tx, worker, items, embedderId));
    },

    async insertTrained(worker, items, embedderId) {
      if (items.length === 0) return [];
      return sql.begin(async (tx) => {
        // the new rows, held by this worker as if claimed, then completed as a claimed batch is (lock order, swap-out)
        const docs: DocumentRecord[] = [];
        for (const { record } of items) docs.push(await insertRow(tx, { ...record, chunks: undefined }));
        const ids = sql.array(
          docs.map((d) => d.id),
          "TEXT",
        );
        // (the lease only has to outlast this transaction: nobody sees the rows before it commits)
        await tx`UPDATE documents SET status = 'processing', lease_owner = ${worker}, lease_until = ${Date.now() + 60_000} WHERE id = ANY(${ids}::text[])`;
        await complete(
          tx,
          worker,
          items.map((it, i) => ({ doc: docs[i] as DocumentRecord, chunks: it.chunks })),
          embedderId,
        );
        const done = new Map((await rows<Row>(tx`SELECT * FROM documents WHERE id = ANY(${ids}::text[])`)).map((r) => [r.id, toDocumentRecord(r)]));
        return docs.map((d) => done.get(d.id) as DocumentRecord);
      });
    },
    async clearIndex(worker, documentId) {
      return sql.begin(async (tx) => {
        if (!(await mine(tx, worker, [documentId])).has(documentId)) return false;
        await index.deleteDocument(documentId, tx);
        return true;
      }) as Promise<boolean>;
    },

    async stage(worker, doc, seq, parts, chunks, embedderId) {
      return sql.begin(async (tx) => {
        await unsynced(tx);
        if (!(await mine(tx, worker, [doc.id])).has(doc.id)) return null;
        const ids = await index.insertStaged(doc.id, chunks, tx);
        if (embedderId) await index.cacheVectors(embedderId, chunks, tx);
        await tx`UPDATE documents SET progress_done = ${seq + 1}, progress_total = ${parts} WHERE id = ${doc.id}`;
        return ids;
      });
    },

    async publish(worker, doc, limit) {
      return sql.begin(async (tx) => {
        await unsynced(tx);
        if (!(await mine(tx, worker, [doc.id])).has(doc.id)) return 0;
        return index.publishStaged(doc.id, doc.deploymentId, limit, tx);
      });
    },

    async finishLarge(worker, doc, vectors, chunkCount) {
      return sql.begin(async (tx) => {
        const current = (await mineWithOlder(tx, worker, [doc])).get(doc.id);
        if (!current) return false;
        await replaceOlder(tx, current);
        await index.insertVectors(doc.deploymentId, vectors, tx);
        await markCompleted(tx, doc.id, chunkCount);
        await refresh(tx, [doc.deploymentId]);
        return true;
      });
    },

    async fail(worker, doc, code, message) {
      await sql.begin(async (tx) => {
        if (!(await mine(tx, worker, [doc.id])).has(doc.id)) return;
        await tx`UPDATE documents SET status = 'failed', error_code = ${code}, error_message = ${message}, lease_owner = NULL, lease_until = NULL,
          updated_at = ${Date.now()} WHERE id = ${doc.id}`;
        await refresh(tx, [doc.deploymentId]);
      });
    },

    async defer(worker, doc, code, message) {
      await sql.begin(async (tx) => {
        if (!(await mine(tx, worker, [doc.id])).has(doc.id)) return;
        await tx`UPDATE documents SET status = 'queued', attempts = greatest(0, attempts - 1), error_code = ${code}, error_message = ${message},
          lease_owner = NULL, lease_until = NULL, updated_at = ${Date.now()} WHERE id = ${doc.id}`;
        await refresh(tx, [doc.deploymentId]);
      });
    },

    async removeDocument(documentId, deploymentId) {
      await sql.begin(async (tx) => {
        // the row first: a worker writing this document's index holds it, and we wait for it instead of deadlocking
        await tx`SELECT id FROM documents WHERE id = ${documentId} FOR UPDATE`;
        await deleteDocument(tx, documentId);
        await refresh(tx, [deploymentId]);
      });
    },

    async refreshStatus(deploymentId) {
      await sql.begin((tx) => refresh(tx, [deploymentId]));
    },

    async recoverInterrupted(worker) {
      return sql.begin(async (tx) => {
        const at = Date.now();
        // a lease that ran out, or this worker's own from before a restart: no claim of it can be alive
        const stale = await rows<{ id: string; deployment_id: string }>(tx`SELECT id, deployment_id FROM documents
          WHERE status = 'processing' AND (lease_until IS NULL OR lease_until < ${at} OR lease_owner = ${worker})
          ORDER BY id FOR UPDATE SKIP LOCKED`);
        for (const d of byDeployment(stale)) await index.deleteDocument(d.id, tx);
        if (stale.length > 0)
          await tx`UPDATE documents SET status = 'queued', lease_owner = NULL, lease_until = NULL, updated_at = ${at}
            WHERE id = ANY(${sql.array(
              stale.map((d) => d.id),
              "TEXT",
            )}::text[])`;
        await refresh(
          tx,
          stale.map((d) => d.deployment_id),
        );
        return stale.length;
      });
    },
  };
}
