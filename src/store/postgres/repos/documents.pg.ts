import type { SQL } from "bun";
import type { DocumentRecord, DocumentRow, DocumentStatus, DocumentsStore, NewDocument } from "../../contract/documents.contract.ts";
import { noStatusCounts, toDocumentRecord } from "../../contract/documents.contract.ts";
import { first, rows } from "./values.ts";

/** How many of a deployment's documents are in each status; on any handle (a transaction's too). */
export async function statusCounts(tx: SQL, deploymentId: string): Promise<Record<DocumentStatus, number>> {
  const out = noStatusCounts();
  for (const r of await rows<{ status: DocumentStatus; n: number }>(
    tx`SELECT status, count(*)::int AS n FROM documents WHERE deployment_id = ${deploymentId} GROUP BY status`,
  ))
    out[r.status] = r.n;
  return out;
}

/** Parts are not acknowledged on their own: the document row's synchronous commit later makes them durable. */
const unsynced = (tx: SQL) => tx`SET LOCAL synchronous_commit = off`;

/** A document's row, its blob and (when given) its one part of prepared chunks, on the caller's transaction. */
export async function insertRow(tx: SQL, input: NewDocument): Promise<DocumentRecord> {
  const at = Date.now();
  const notes = input.notes && input.notes.length > 0 ? JSON.stringify(input.notes) : null;
  const row =
    await first<DocumentRow>(tx`INSERT INTO documents (id, deployment_id, name, kind, content_hash, size, origin, status, pages, replace_on_train, queued_at,
      ocr_pages, ocr_confidence, notes, created_at, updated_at)
    VALUES (${input.id}, ${input.deploymentId}, ${input.name}, ${input.kind}, ${input.contentHash}, ${input.size ?? input.bytes?.byteLength ?? 0},
      ${input.origin ?? "owner"}, ${input.queue ? "queued" : "stored"}, ${input.pages}, ${input.replaceOnTrain ? 1 : 0}, ${input.queue ? at : null}, ${input.ocrPages ?? 0},
      ${input.ocrConfidence ?? null}, ${notes}, ${at}, ${at}) RETURNING *`);
  await tx`INSERT INTO document_blobs (document_id, bytes, parsed) VALUES (${input.id}, ${input.bytes ?? new Uint8Array()}, ${input.parsed ?? null})`;
  if (input.chunks !== undefined) await putPart(tx, input.id, "chunks", 0, input.chunks, at);
  if (!row) throw new Error("document insert returned no row");
  return toDocumentRecord(row);
}
const putPart = (tx: SQL, documentId: string, part: string, seq: number, data: Uint8Array | string, at: number) =>
  tx`INSERT INTO document_parts (document_id, part, seq, data, created_at)
    VALUES (${documentId}, ${part}, ${seq}, ${typeof data === "string" ? Buffer.from(data) : data}, ${at})
    ON CONFLICT (document_id, part, seq) DO UPDATE SET data = excluded.data, created_at = excluded.created_at`;

/**
 * Documents on PostgreSQL. Documents are claimed for training only through the TrainingStore (training.pg.ts),
 * under a worker's lease.
 */
export function createPgDocumentsRepo(sql: SQL): DocumentsStore {
  const one = async (q: Promise<unknown>) => {
    const r = await first<DocumentRow>(q);
    return r ? toDocumentRecord(r) : null;
  };
  return {
    async insert(input) {
      return sql.begin((tx) => insertRow(tx, input));
    },
    async insertMany(inputs) {
      return sql.begin(async (tx) => {
        const out: DocumentRecord[] = [];
        for (const input of inputs) out.push(await insertRow(tx, input));
        return out;
      });
    },
    async insertPart(documentId, part, seq, data) {
      await sql.begin(async (tx) => {
        await unsynced(tx);
        await putPart(tx, documentId, part, seq, data, Date.now());
      });
    },
    async partCount(documentId, part) {
      const r = await first<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM document_parts WHERE document_id = ${documentId} AND part = ${part}`,
      );
      return Number(r?.n ?? 0);
    },
    async partText(documentId, part, seq) {
      const r = await first<{ data: Uint8Array }>(
        sql`SELECT data FROM document_parts WHERE document_id = ${documentId} AND part = ${part} AND seq = ${seq}`,
      );
      return r ? new TextDecoder().decode(r.data) : null;
    },
    async deleteOrphanParts(olderThanMs) {
      const res = await sql`DELETE FROM document_parts p WHERE created_at < ${Date.now() - olderThanMs}
        AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = p.document_id)`;
      return res.count;
    },
    async setProgress(id, done, total) {
      await sql`UPDATE documents SET progress_done = ${done}, progress_total = ${total} WHERE id = ${id}`;
    },
    get: (id) => one(sql`SELECT * FROM documents WHERE id = ${id}`),
    getScoped: (id, deploymentId) => one(sql`SELECT * FROM documents WHERE id = ${id} AND deployment_id = ${deploymentId}`),
    async list(deploymentId) {
      return (await rows<DocumentRow>(sql`SELECT * FROM documents WHERE deployment_id = ${deploymentId} ORDER BY created_at, id`)).map(
        toDocumentRecord,
      );
    },
    async accountUsage(accountId, except) {
      const r = await first<{ n: string; b: string }>(sql`SELECT count(*)::int8 AS n, coalesce(sum(d.size), 0)::int8 AS b
        FROM documents d JOIN deployments p ON p.id = d.deployment_id
        WHERE p.account_id = ${accountId} AND d.origin = 'owner'
          AND NOT (d.deployment_id = ${except?.deploymentId ?? ""} AND d.name = ${except?.name ?? ""})`);
      return { documents: Number(r?.n ?? 0), bytes: Number(r?.b ?? 0) };
    },
    async pushUsage(deploymentId, exceptName) {
      const r = await first<{ n: string; b: string }>(sql`SELECT count(*)::int8 AS n, coalesce(sum(size), 0)::int8 AS b FROM documents
        WHERE deployment_id = ${deploymentId} AND origin = 'key' AND name <> ${exceptName ?? ""}`);
      return { documents: Number(r?.n ?? 0), bytes: Number(r?.b ?? 0) };
    },
    async findByName(deploymentId, name) {
      return (
        await rows<DocumentRow>(sql`SELECT * FROM documents WHERE deployment_id = ${deploymentId} AND name = ${name} ORDER BY created_at`)
      ).map(toDocumentRecord);
    },
    async parsed(id) {
      const r = await first<{ parsed: string | null }>(sql`SELECT parsed FROM document_blobs WHERE document_id = ${id}`);
      return r?.parsed ?? null;
    },
    async bytes(id) {
      const blob = (await first<{ bytes: Uint8Array }>(sql`SELECT bytes FROM document_blobs WHERE document_id = ${id}`))?.bytes ?? null;
      if (!blob || blob.byteLength > 0) return blob;
      const parts = await rows<{ data: Uint8Array }>(
        sql`SELECT data FROM document_parts WHERE document_id = ${id} AND part = 'bytes' ORDER BY seq`,
      );
      return parts.length === 0 ? blob : Buffer.concat(parts.map((p) => p.data));
    },
    async queueDeployment(deploymentId) {
      const at = Date.now();
      const res =
        await sql`UPDATE documents SET status = 'queued', queued_at = ${at}, attempts = 0, error_code = NULL, error_message = NULL,
        updated_at = ${at} WHERE deployment_id = ${deploymentId} AND status IN ('stored', 'failed')`;
      return res.count;
    },
    async markCompleted(id, chunkCount) {
      await sql`UPDATE documents SET status = 'completed', chunk_count = ${chunkCount}, progress_done = progress_total, error_code = NULL,
        error_message = NULL, lang = (SELECT c.lang FROM chunks c WHERE c.document_id = documents.id AND c.lang IS NOT NULL GROUP BY c.lang ORDER BY count(*) DESC, c.lang LIMIT 1), lease_owner = NULL, lease_until = NULL, updated_at = ${Date.now()} WHERE id = ${id}`;
    },
    async deferQueued(id, code, message) {
      await sql`UPDATE documents SET status = 'queued', attempts = greatest(0, attempts - 1), error_code = ${code}, error_message = ${message},
        lease_owner = NULL, lease_until = NULL, updated_at = ${Date.now()} WHERE id = ${id} AND status = 'processing'`;
    },
    async markFailed(id, code, message) {
      await sql`UPDATE documents SET status = 'failed', error_code = ${code}, error_message = ${message}, lease_owner = NULL, lease_until = NULL,
        updated_at = ${Date.now()} WHERE id = ${id}`;
    },
    /** The row and its parts. Its chunks cascade without their keyword rows: use TrainingStore.removeDocument to remove a trained one. */
    async deleteRow(id) {
      await sql.begin(async (tx) => {
        await tx`DELETE FROM document_parts WHERE document_id = ${id}`;
        await tx`DELETE FROM documents WHERE id = ${id}`;
      });
    },
    async statusCounts(deploymentId) {
      return statusCounts(sql, deploymentId);
    },
    async languages(deploymentId) {
      return (
        await rows<{ lang: string; documents: number; chunks: number }>(
          sql`SELECT lang, count(*)::int AS documents, sum(chunk_count)::int AS chunks FROM documents
            WHERE deployment_id = ${deploymentId} AND status = 'completed' AND lang IS NOT NULL GROUP BY lang ORDER BY chunks DESC, lang`,
        )
      ).map((r) => ({ lang: r.lang, documents: Number(r.documents), chunks: Number(r.chunks) }));
    },
    async pendingDeployments() {
      return (
        await rows<{ d: string }>(
          sql`SELECT DISTINCT deployment_id AS d FROM documents WHERE status IN ('queued', 'processing') ORDER BY d`,
        )
      ).map((r) => r.d);
    },
  };
}
