import type {
  DocumentLanguage,
  DocumentRecord,
  DocumentRow,
  DocumentStatus,
  DocumentsStore,
  NewDocument,
} from "../../contract/documents.contract.ts";
import { byCreation, noStatusCounts, toDocumentRecord } from "../../contract/documents.contract.ts";
import type { SQLQueryBindings } from "bun:sqlite";
import { type Db, flushWal, unpromisedTransaction } from "../db.ts";

/**
 * Document reads and writes the training store also runs inside its own transactions (training.sqlite.ts), on
 * this thread, so they stay synchronous here.
 */
export function documentById(db: Db, id: string): DocumentRecord | null {
  const r = db.query<DocumentRow, [string]>("SELECT * FROM documents WHERE id = ?").get(id);
  return r ? toDocumentRecord(r) : null;
}

/** Oldest first, sorted here: ORDER BY in SQL sorted in a temp b-tree, ~75 µs a call (twice per document of a bulk load). */
export function documentsNamed(db: Db, deploymentId: string, name: string): DocumentRecord[] {
  return db
    .query<DocumentRow, [string, string]>("SELECT * FROM documents WHERE deployment_id = ? AND name = ?")
    .all(deploymentId, name)
    .map(toDocumentRecord)
    .sort(byCreation);
}

export function deleteDocumentRow(db: Db, id: string): void {
  db.run("DELETE FROM document_parts WHERE document_id = ?", [id]);
  db.run("DELETE FROM documents WHERE id = ?", [id]);
}

const COMPLETED =
  "UPDATE documents SET status = 'completed', chunk_count = ?, progress_done = progress_total, error_code = NULL, error_message = NULL";

/**
 * Completed, in the language most of its chunks were analyzed in (ties: the first code): counted from `langs`, its
 * chunks' languages, when the caller has them at hand (a small document's batch), else from its rows (sorted in
 * temp b-trees, ~0.1 ms).
 */
export function markCompleted(db: Db, id: string, chunkCount: number, langs?: (string | null)[]): void {
  if (langs) {
    db.query(`${COMPLETED}, lang = ?, updated_at = ? WHERE id = ?`).run(chunkCount, mostCommon(langs), Date.now(), id);
    return;
  }
  db.query(
    `${COMPLETED}, lang = (SELECT c.lang FROM chunks c WHERE c.document_id = documents.id AND c.lang IS NOT NULL GROUP BY c.lang ORDER BY count(*) DESC, c.lang LIMIT 1), updated_at = ? WHERE id = ?`,
  ).run(chunkCount, Date.now(), id);
}

function mostCommon(values: (string | null)[]): string | null {
  const counts = new Map<string, number>();
  for (const v of values) if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | null = null;
  for (const [v, n] of counts) {
    const m = best === null ? 0 : (counts.get(best) as number);
    if (n > m || (n === m && best !== null && v < best)) best = v;
  }
  return best;
}

export function markFailed(db: Db, id: string, code: string, message: string): void {
  db.run("UPDATE documents SET status = 'failed', error_code = ?, error_message = ?, updated_at = ? WHERE id = ?", [
    code,
    message,
    Date.now(),
    id,
  ]);
}

export function deferQueued(db: Db, id: string, code: string, message: string): void {
  db.run(
    "UPDATE documents SET status = 'queued', attempts = MAX(0, attempts - 1), error_code = ?, error_message = ?, updated_at = ? WHERE id = ? AND status = 'processing'",
    [code, message, Date.now(), id],
  );
}

export function setProgress(db: Db, id: string, done: number, total: number): void {
  db.run("UPDATE documents SET progress_done = ?, progress_total = ? WHERE id = ?", [done, total, id]);
}

export function statusCounts(db: Db, deploymentId: string): Record<DocumentStatus, number> {
  const out = noStatusCounts();
  for (const r of db
    .query<{ status: DocumentStatus; n: number }, [string]>(
      "SELECT status, COUNT(*) AS n FROM documents WHERE deployment_id = ? GROUP BY status",
    )
    .all(deploymentId))
    out[r.status] = r.n;
  return out;
}

export function pendingDeployments(db: Db): string[] {
  return db
    .query<{ d: string }, []>("SELECT DISTINCT deployment_id AS d FROM documents WHERE status IN ('queued', 'processing') ORDER BY d")
    .all()
    .map((r) => r.d);
}

const INSERT_PART = "INSERT OR REPLACE INTO document_parts (document_id, part, seq, data, created_at) VALUES (?, ?, ?, ?, ?)";

/** A document's row, its blob and (when given) its one part of prepared chunks; inside the caller's transaction. */
export function insertRow(db: Db, input: NewDocument): DocumentRecord {
  const at = Date.now();
  const notes = input.notes && input.notes.length > 0 ? JSON.stringify(input.notes) : null;
  // db.query caches the compiled statement: a bulk load inserts thousands of rows (returned as inserted, not read again)
  const row = db
    .query<DocumentRow, SQLQueryBindings[]>(
      `INSERT INTO documents (id, deployment_id, name, kind, content_hash, size, origin, status, pages, replace_on_train, queued_at, ocr_pages, ocr_confidence, notes, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    )
    .get(
    input.id,
    input.deploymentId,
    input.name,
    input.kind,
    input.contentHash,
    input.size ?? input.bytes?.byteLength ?? 0,
    input.origin ?? "owner",
    input.queue ? "queued" : "stored",
    input.pages,
    input.replaceOnTrain ? 1 : 0,
    input.queue ? at : null,
    input.ocrPages ?? 0,
    input.ocrConfidence ?? null,
    notes,
    at,
    at,
  );
  db.query("INSERT INTO document_blobs (document_id, bytes, parsed) VALUES (?, ?, ?)").run(
    input.id,
    input.bytes ?? new Uint8Array(),
    input.parsed ?? null,
  );
  if (input.chunks !== undefined) db.query(INSERT_PART).run(input.id, "chunks", 0, input.chunks, at);
  return toDocumentRecord(row as DocumentRow);
}

export function createSqliteDocumentsRepo(db: Db): DocumentsStore {
  return {
    async insert(input) {
      // a large document's parts were written unsynced: flush them off the event loop before the row's commit
      if (input.bytes === undefined) await flushWal(db);
      return db.transaction(() => insertRow(db, input)).immediate();
    },
    async insertMany(inputs) {
      return db.transaction(() => inputs.map((input) => insertRow(db, input))).immediate();
    },
    async insertPart(documentId, part, seq, data) {
      unpromisedTransaction(db, () => db.query(INSERT_PART).run(documentId, part, seq, data, Date.now()));
    },
    async partCount(documentId, part) {
      return (
        db
          .query<{ n: number }, [string, string]>("SELECT COUNT(*) AS n FROM document_parts WHERE document_id = ? AND part = ?")
          .get(documentId, part)?.n ?? 0
      );
    },
    async partText(documentId, part, seq) {
      const r = db
        .query<{ data: Uint8Array | string }, [string, string, number]>(
          "SELECT data FROM document_parts WHERE document_id = ? AND part = ? AND seq = ?",
        )
        .get(documentId, part, seq);
      if (!r) return null;
      return typeof r.data === "string" ? r.data : new TextDecoder().decode(r.data);
    },
    async deleteOrphanParts(olderThanMs) {
      return db.run("DELETE FROM document_parts WHERE created_at < ? AND document_id NOT IN (SELECT id FROM documents)", [
        Date.now() - olderThanMs,
      ]).changes;
    },
    setProgress: async (id, done, total) => setProgress(db, id, done, total),
    get: async (id) => documentById(db, id),
    async getScoped(id, deploymentId) {
      const d = documentById(db, id);
      return d && d.deploymentId === deploymentId ? d : null;
    },
    async list(deploymentId) {
      return db
        .query<DocumentRow, [string]>("SELECT * FROM documents WHERE deployment_id = ? ORDER BY created_at, id")
        .all(deploymentId)
        .map(toDocumentRecord);
    },
    async accountUsage(accountId, except) {
      const r = db
        .query<{ n: number; b: number }, [number, string, string]>(
          `SELECT COUNT(*) AS n, COALESCE(SUM(d.size), 0) AS b FROM documents d JOIN deployments p ON p.id = d.deployment_id
           WHERE p.account_id = ? AND d.origin = 'owner' AND NOT (d.deployment_id = ? AND d.name = ?)`,
        )
        .get(accountId, except?.deploymentId ?? "", except?.name ?? "");
      return { documents: r?.n ?? 0, bytes: r?.b ?? 0 };
    },
    async pushUsage(deploymentId, exceptName) {
      const r = db
        .query<{ n: number; b: number }, [string, string]>(
          `SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS b FROM documents
           WHERE deployment_id = ? AND origin = 'key' AND name <> ?`,
        )
        .get(deploymentId, exceptName ?? "");
      return { documents: r?.n ?? 0, bytes: r?.b ?? 0 };
    },
    findByName: async (deploymentId, name) => documentsNamed(db, deploymentId, name),
    async parsed(id) {
      return (
        db.query<{ parsed: string | null }, [string]>("SELECT parsed FROM document_blobs WHERE document_id = ?").get(id)?.parsed ?? null
      );
    },
    async bytes(id) {
      const blob =
        db.query<{ bytes: Uint8Array }, [string]>("SELECT bytes FROM document_blobs WHERE document_id = ?").get(id)?.bytes ?? null;
      if (!blob || blob.byteLength > 0) return blob;
      const parts = db
        .query<{ data: Uint8Array }, [string]>("SELECT data FROM document_parts WHERE document_id = ? AND part = 'bytes' ORDER BY seq")
        .all(id);
      return parts.length === 0 ? blob : Buffer.concat(parts.map((p) => p.data));
    },
    async queueDeployment(deploymentId) {
      const at = Date.now();
      return db.run(
        "UPDATE documents SET status = 'queued', queued_at = ?, attempts = 0, error_code = NULL, error_message = NULL, updated_at = ? WHERE deployment_id = ? AND status IN ('stored', 'failed')",
        [at, at, deploymentId],
      ).changes;
    },
    markCompleted: async (id, chunkCount) => markCompleted(db, id, chunkCount),
    deferQueued: async (id, code, message) => deferQueued(db, id, code, message),
    markFailed: async (id, code, message) => markFailed(db, id, code, message),
    deleteRow: async (id) => deleteDocumentRow(db, id),
    statusCounts: async (deploymentId) => statusCounts(db, deploymentId),
    async languages(deploymentId) {
      return db
        .query<DocumentLanguage, [string]>(
          "SELECT lang, COUNT(*) AS documents, SUM(chunk_count) AS chunks FROM documents WHERE deployment_id = ? AND status = 'completed' AND lang IS NOT NULL GROUP BY lang ORDER BY chunks DESC, lang",
        )
        .all(deploymentId);
    },
    pendingDeployments: async () => pendingDeployments(db),
  };
}
