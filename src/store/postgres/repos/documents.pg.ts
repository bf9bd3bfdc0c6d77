import type { SQL } from "bun";
import type { DocumentLanguage, DocumentNote, DocumentRecord, DocumentStatus, NewDocument } from "../../repos/documents.repo.ts";
import type { DocumentsStore } from "../../store.ts";
import { numOrNull, type Raw } from "./values.ts";

/** A documents row as the SQLite repo returns it. */
export const toDocumentRecord = (r: Raw): DocumentRecord => ({
  id: r.id as string,
  deploymentId: r.deployment_id as string,
  name: r.name as string,
  kind: r.kind as string,
  contentHash: r.content_hash as string,
  size: Number(r.size),
  status: r.status as DocumentStatus,
  errorCode: (r.error_code as string | null) ?? null,
  errorMessage: (r.error_message as string | null) ?? null,
  attempts: Number(r.attempts),
  chunkCount: Number(r.chunk_count),
  pages: numOrNull(r.pages),
  replaceOnTrain: r.replace_on_train === 1,
  ocrPages: Number(r.ocr_pages),
  ocrConfidence: numOrNull(r.ocr_confidence),
  notes: r.notes ? (JSON.parse(r.notes as string) as DocumentNote[]) : [],
  progress: { done: Number(r.progress_done), total: Number(r.progress_total) },
  lang: (r.lang as string | null) ?? null,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

/** Queue order, then creation order for the caller (as SQLite's claimBatch returns them). */
export const byCreation = (x: DocumentRecord, y: DocumentRecord) => x.createdAt - y.createdAt || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);

/** Parts are not acknowledged on their own: the document row's synchronous commit later makes them durable. */
const unsynced = (tx: SQL) => tx`SET LOCAL synchronous_commit = off`;

/**
 * Documents on PostgreSQL (the SQLite twin is repos/documents.repo.ts). Documents are claimed for training only
 * through the TrainingStore (training.pg.ts), under a worker's lease.
 */
export function createPgDocumentsRepo(sql: SQL): DocumentsStore {
  async function insertRow(tx: SQL, input: NewDocument): Promise<DocumentRecord> {
    const at = Date.now();
    const notes = input.notes && input.notes.length > 0 ? JSON.stringify(input.notes) : null;
    const [row] =
      (await tx`INSERT INTO documents (id, deployment_id, name, kind, content_hash, size, status, pages, replace_on_train, queued_at,
        ocr_pages, ocr_confidence, notes, created_at, updated_at)
      VALUES (${input.id}, ${input.deploymentId}, ${input.name}, ${input.kind}, ${input.contentHash}, ${input.size ?? input.bytes?.byteLength ?? 0},
        ${input.queue ? "queued" : "stored"}, ${input.pages}, ${input.replaceOnTrain ? 1 : 0}, ${input.queue ? at : null}, ${input.ocrPages ?? 0},
        ${input.ocrConfidence ?? null}, ${notes}, ${at}, ${at}) RETURNING *`) as Raw[];
    await tx`INSERT INTO document_blobs (document_id, bytes, parsed) VALUES (${input.id}, ${input.bytes ?? new Uint8Array()}, ${input.parsed ?? null})`;
    if (input.chunks !== undefined) await putPart(tx, input.id, "chunks", 0, input.chunks, at);
    return toDocumentRecord(row as Raw);
  }
  const putPart = (tx: SQL, documentId: string, part: string, seq: number, data: Uint8Array | string, at: number) =>
    tx`INSERT INTO document_parts (document_id, part, seq, data, created_at)
      VALUES (${documentId}, ${part}, ${seq}, ${typeof data === "string" ? Buffer.from(data) : data}, ${at})
      ON CONFLICT (document_id, part, seq) DO UPDATE SET data = excluded.data, created_at = excluded.created_at`;
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
      const r = (
        (await sql`SELECT count(*)::int AS n FROM document_parts WHERE document_id = ${documentId} AND part = ${part}`) as Raw[]
      )[0];
      return Number(r?.n ?? 0);
    },
    async partText(documentId, part, seq) {
      const r = (
        (await sql`SELECT data FROM document_parts WHERE document_id = ${documentId} AND part = ${part} AND seq = ${seq}`) as Raw[]
      )[0];
      return r ? new TextDecoder().decode(r.data as Uint8Array) : null;
    },
    async deleteOrphanParts(olderThanMs) {
      const res = await sql`DELETE FROM document_parts p WHERE created_at < ${Date.now() - olderThanMs}
        AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = p.document_id)`;
      return res.count;
    },
    async setProgress(id, done, total) {
      await sql`UPDATE documents SET progress_done = ${done}, progress_total = ${total} WHERE id = ${id}`;
    },
    async get(id) {
      const r = ((await sql`SELECT * FROM documents WHERE id = ${id}`) as Raw[])[0];
      return r ? toDocumentRecord(r) : null;
    },
    async getScoped(id, deploymentId) {
      const r = ((await sql`SELECT * FROM documents WHERE id = ${id}`) as Raw[])[0];
      return r && r.deployment_id === deploymentId ? toDocumentRecord(r) : null;
    },
    async list(deploymentId) {
      return ((await sql`SELECT * FROM documents WHERE deployment_id = ${deploymentId} ORDER BY created_at, id`) as Raw[]).map(
        toDocumentRecord,
      );
    },
    async accountUsage(accountId, except) {
      const r = (
        (await sql`SELECT count(*)::int8 AS n, coalesce(sum(d.size), 0)::int8 AS b FROM documents d JOIN deployments p ON p.id = d.deployment_id
          WHERE p.account_id = ${accountId} AND NOT (d.deployment_id = ${except?.deploymentId ?? ""} AND d.name = ${except?.name ?? ""})`) as Raw[]
      )[0];
      return { documents: Number(r?.n ?? 0), bytes: Number(r?.b ?? 0) };
    },
    async findByName(deploymentId, name) {
      return (
        (await sql`SELECT * FROM documents WHERE deployment_id = ${deploymentId} AND name = ${name} ORDER BY created_at`) as Raw[]
      ).map(toDocumentRecord);
    },
    async parsed(id) {
      const r = ((await sql`SELECT parsed FROM document_blobs WHERE document_id = ${id}`) as Raw[])[0];
      return (r?.parsed as string | null | undefined) ?? null;
    },
    async bytes(id) {
      const r = ((await sql`SELECT bytes FROM document_blobs WHERE document_id = ${id}`) as Raw[])[0];
      const blob = (r?.bytes as Uint8Array | undefined) ?? null;
      if (!blob || blob.byteLength > 0) return blob;
      const parts = (await sql`SELECT data FROM document_parts WHERE document_id = ${id} AND part = 'bytes' ORDER BY seq`) as Raw[];
      return parts.length === 0 ? blob : Buffer.concat(parts.map((p) => p.data as Uint8Array));
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
        error_message = NULL, lease_owner = NULL, lease_until = NULL, updated_at = ${Date.now()} WHERE id = ${id}`;
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
    async languages(deploymentId): Promise<DocumentLanguage[]> {
      const rows = (await sql`SELECT lang, count(*)::int AS documents, sum(chunk_count)::int AS chunks FROM documents
        WHERE deployment_id = ${deploymentId} AND status = 'completed' AND lang IS NOT NULL GROUP BY lang ORDER BY chunks DESC, lang`) as Raw[];
      return rows.map((r) => ({ lang: r.lang as string, documents: Number(r.documents), chunks: Number(r.chunks) }));
    },
    async statusCounts(deploymentId) {
      const out: Record<DocumentStatus, number> = { stored: 0, queued: 0, processing: 0, completed: 0, failed: 0 };
      for (const r of (await sql`SELECT status, count(*)::int AS n FROM documents WHERE deployment_id = ${deploymentId} GROUP BY status`) as Raw[])
        out[r.status as DocumentStatus] = Number(r.n);
      return out;
    },
    async pendingDeployments() {
      return (
        (await sql`SELECT DISTINCT deployment_id AS d FROM documents WHERE status IN ('queued', 'processing') ORDER BY d`) as Raw[]
      ).map((r) => r.d as string);
    },
  };
}
