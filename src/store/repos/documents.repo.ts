import { type Db, unpromisedTransaction } from "../db.ts";

export type DocumentStatus = "stored" | "queued" | "processing" | "completed" | "failed";

export interface DocumentRecord {
  id: string;
  deploymentId: string;
  name: string;
  kind: string;
  contentHash: string;
  size: number;
  status: DocumentStatus;
  errorCode: string | null;
  errorMessage: string | null;
  attempts: number;
  chunkCount: number;
  pages: number | null;
  replaceOnTrain: boolean;
  /** pages read by OCR and their mean confidence (0..100), null when none */
  ocrPages: number;
  ocrConfidence: number | null;
  /** pages to report (low OCR confidence, no text, left unread) */
  notes: DocumentNote[];
  /** while processing: parts indexed of the total */
  progress: { done: number; total: number };
  /** the language its text was analyzed in (ISO 639-1; the most of its chunks'), null until trained */
  lang: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One language of a deployment's documents (docchat doctor, the console, the retriever). */
export interface DocumentLanguage {
  lang: string;
  documents: number;
  chunks: number;
}

export interface DocumentNote {
  page: number;
  code: string;
  confidence?: number;
}

export type PartKind = "bytes" | "chunks";

interface Row {
  id: string;
  deployment_id: string;
  name: string;
  kind: string;
  content_hash: string;
  size: number;
  status: DocumentStatus;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  chunk_count: number;
  pages: number | null;
  replace_on_train: number;
  ocr_pages: number;
  ocr_confidence: number | null;
  notes: string | null;
  progress_done: number;
  progress_total: number;
  lang: string | null;
  created_at: number;
  updated_at: number;
}

const toRecord = (r: Row): DocumentRecord => ({
  id: r.id,
  deploymentId: r.deployment_id,
  name: r.name,
  kind: r.kind,
  contentHash: r.content_hash,
  size: r.size,
  status: r.status,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  attempts: r.attempts,
  chunkCount: r.chunk_count,
  pages: r.pages,
  replaceOnTrain: r.replace_on_train === 1,
  ocrPages: r.ocr_pages,
  ocrConfidence: r.ocr_confidence,
  notes: r.notes ? (JSON.parse(r.notes) as DocumentNote[]) : [],
  progress: { done: r.progress_done, total: r.progress_total },
  lang: r.lang ?? null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface NewDocument {
  id: string;
  deploymentId: string;
  name: string;
  kind: string;
  contentHash: string;
  /** bytes; default: the inline bytes' length */
  size?: number;
  /** small documents: the bytes inline (a large one's were written with insertPart beforehand) */
  bytes?: Uint8Array;
  /** small documents: the prepared chunks (JSON lines), written as part 0 in the same transaction */
  chunks?: string;
  /** a ParsedDocument as JSON (older callers); training chunks it itself */
  parsed?: string;
  pages: number | null;
  queue: boolean;
  replaceOnTrain: boolean;
  ocrPages?: number;
  ocrConfidence?: number | null;
  notes?: DocumentNote[];
}

export function createDocumentsRepo(db: Db) {
  const byId = db.query<Row, [string]>("SELECT * FROM documents WHERE id = ?");
  const insertPartQuery = db.query(
    "INSERT OR REPLACE INTO document_parts (document_id, part, seq, data, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  function insertRow(input: NewDocument): DocumentRecord {
    const at = Date.now();
    const notes = input.notes && input.notes.length > 0 ? JSON.stringify(input.notes) : null;
    // db.query caches the compiled statement: a bulk load inserts thousands of rows
    db.query(
      `INSERT INTO documents (id, deployment_id, name, kind, content_hash, size, status, pages, replace_on_train, queued_at, ocr_pages, ocr_confidence, notes, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      input.id,
      input.deploymentId,
      input.name,
      input.kind,
      input.contentHash,
      input.size ?? input.bytes?.byteLength ?? 0,
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
    if (input.chunks !== undefined) insertPartQuery.run(input.id, "chunks", 0, input.chunks, at);
    return toRecord(byId.get(input.id) as Row);
  }
  return {
    /**
     * Stores the document row. A large document's bytes and prepared chunks are already in parts (insertPart); a
     * small one's come inline. Either way the row commits last, so a document is never seen half stored.
     */
    insert(input: NewDocument): DocumentRecord {
      return db.transaction(() => insertRow(input)).immediate();
    },
    /** Several documents in one transaction (bulk loads: one commit instead of one per file). */
    insertMany(inputs: NewDocument[]): DocumentRecord[] {
      return db.transaction(() => inputs.map(insertRow)).immediate();
    },
    /** One bounded part of a document's bytes or prepared chunks, in its own short transaction (no fsync: see unpromisedTransaction). */
    insertPart(documentId: string, part: PartKind, seq: number, data: Uint8Array | string): void {
      unpromisedTransaction(db, () => insertPartQuery.run(documentId, part, seq, data, Date.now()));
    },
    partCount(documentId: string, part: PartKind): number {
      return (
        db
          .query<{ n: number }, [string, string]>("SELECT COUNT(*) AS n FROM document_parts WHERE document_id = ? AND part = ?")
          .get(documentId, part)?.n ?? 0
      );
    },
    partText(documentId: string, part: PartKind, seq: number): string | null {
      const r = db
        .query<{ data: Uint8Array | string }, [string, string, number]>(
          "SELECT data FROM document_parts WHERE document_id = ? AND part = ? AND seq = ?",
        )
        .get(documentId, part, seq);
      if (!r) return null;
      return typeof r.data === "string" ? r.data : new TextDecoder().decode(r.data);
    },
    /** Parts left by an upload interrupted before its document row was written. */
    deleteOrphanParts(olderThanMs: number): number {
      return db.run("DELETE FROM document_parts WHERE created_at < ? AND document_id NOT IN (SELECT id FROM documents)", [
        Date.now() - olderThanMs,
      ]).changes;
    },
    setProgress(id: string, done: number, total: number): void {
      db.run("UPDATE documents SET progress_done = ?, progress_total = ? WHERE id = ?", [done, total, id]);
    },
    get(id: string): DocumentRecord | null {
      const r = byId.get(id);
      return r ? toRecord(r) : null;
    },
    /** Scoped lookup: a document of another deployment is indistinguishable from a missing one. */
    getScoped(id: string, deploymentId: string): DocumentRecord | null {
      const r = byId.get(id);
      return r && r.deployment_id === deploymentId ? toRecord(r) : null;
    },
    list(deploymentId: string): DocumentRecord[] {
      return db
        .query<Row, [string]>("SELECT * FROM documents WHERE deployment_id = ? ORDER BY created_at, id")
        .all(deploymentId)
        .map(toRecord);
    },
    /** Documents and bytes stored by an account, leaving out one name in one deployment (a push about to replace it). */
    accountUsage(accountId: number, except: { deploymentId: string; name: string } | null): { documents: number; bytes: number } {
      const r = db
        .query<{ n: number; b: number }, [number, string, string]>(
          `SELECT COUNT(*) AS n, COALESCE(SUM(d.size), 0) AS b FROM documents d JOIN deployments p ON p.id = d.deployment_id
           WHERE p.account_id = ? AND NOT (d.deployment_id = ? AND d.name = ?)`,
        )
        .get(accountId, except?.deploymentId ?? "", except?.name ?? "");
      return { documents: r?.n ?? 0, bytes: r?.b ?? 0 };
    },
    findByName(deploymentId: string, name: string): DocumentRecord[] {
      return db
        .query<Row, [string, string]>("SELECT * FROM documents WHERE deployment_id = ? AND name = ? ORDER BY created_at")
        .all(deploymentId, name)
        .map(toRecord);
    },
    parsed(id: string): string | null {
      return (
        db.query<{ parsed: string | null }, [string]>("SELECT parsed FROM document_blobs WHERE document_id = ?").get(id)?.parsed ?? null
      );
    },
    bytes(id: string): Uint8Array | null {
      const blob =
        db.query<{ bytes: Uint8Array }, [string]>("SELECT bytes FROM document_blobs WHERE document_id = ?").get(id)?.bytes ?? null;
      if (!blob || blob.byteLength > 0) return blob;
      const parts = db
        .query<{ data: Uint8Array }, [string]>("SELECT data FROM document_parts WHERE document_id = ? AND part = 'bytes' ORDER BY seq")
        .all(id);
      return parts.length === 0 ? blob : Buffer.concat(parts.map((p) => p.data));
    },
    /** Queues every stored (untrained) or failed document of a deployment; returns how many. */
    queueDeployment(deploymentId: string): number {
      const at = Date.now();
      return db.run(
        "UPDATE documents SET status = 'queued', queued_at = ?, attempts = 0, error_code = NULL, error_message = NULL, updated_at = ? WHERE deployment_id = ? AND status IN ('stored', 'failed')",
        [at, at, deploymentId],
      ).changes;
    },
    /** Claims the oldest queued document for processing (atomic: one worker per document). */
    claimNext(): DocumentRecord | null {
      const r = db
        .query<Row, [number]>(
          `UPDATE documents SET status = 'processing', attempts = attempts + 1, updated_at = ?
            WHERE id = (SELECT id FROM documents WHERE status = 'queued' ORDER BY queued_at, id LIMIT 1) RETURNING *`,
        )
        .get(Date.now());
      return r ? toRecord(r) : null;
    },
    /** Claims up to `limit` of the oldest queued documents at once (bulk loads: one statement, not one per document). */
    claimBatch(limit: number): DocumentRecord[] {
      return db
        .query<Row, [number, number]>(
          `UPDATE documents SET status = 'processing', attempts = attempts + 1, updated_at = ?
            WHERE id IN (SELECT id FROM documents WHERE status = 'queued' ORDER BY queued_at, id LIMIT ?) RETURNING *`,
        )
        .all(Date.now(), limit)
        .map(toRecord)
        .sort((x, y) => x.createdAt - y.createdAt || x.id.localeCompare(y.id));
    },
    /** Documents left mid-processing by a crash (their partial index rows are removed before they are requeued). */
    interruptedIds(): string[] {
      return db
        .query<{ id: string }, []>("SELECT id FROM documents WHERE status = 'processing'")
        .all()
        .map((r) => r.id);
    },
    /** After a crash, documents left mid-processing go back to the queue. */
    requeueInterrupted(): number {
      return db.run("UPDATE documents SET status = 'queued', updated_at = ? WHERE status = 'processing'", [Date.now()]).changes;
    },
    markCompleted(id: string, chunkCount: number): void {
      db.run(
        // the document's language: the one most of its chunks were analyzed in
        "UPDATE documents SET status = 'completed', chunk_count = ?, progress_done = progress_total, error_code = NULL, error_message = NULL, lang = (SELECT c.lang FROM chunks c WHERE c.document_id = documents.id AND c.lang IS NOT NULL GROUP BY c.lang ORDER BY count(*) DESC, c.lang LIMIT 1), updated_at = ? WHERE id = ?",
        [chunkCount, Date.now(), id],
      );
    },
    /**
     * Puts a claimed document back in the queue, in its old place, with the reason it waits (shown as its
     * `error` while queued). The attempt is not counted: the document did nothing wrong.
     */
    deferQueued(id: string, code: string, message: string): void {
      db.run(
        "UPDATE documents SET status = 'queued', attempts = MAX(0, attempts - 1), error_code = ?, error_message = ?, updated_at = ? WHERE id = ? AND status = 'processing'",
        [code, message, Date.now(), id],
      );
    },
    markFailed(id: string, code: string, message: string): void {
      db.run("UPDATE documents SET status = 'failed', error_code = ?, error_message = ?, updated_at = ? WHERE id = ?", [
        code,
        message,
        Date.now(),
        id,
      ]);
    },
    deleteRow(id: string): void {
      db.run("DELETE FROM document_parts WHERE document_id = ?", [id]);
      db.run("DELETE FROM documents WHERE id = ?", [id]);
    },
    /** The languages of the deployment's trained documents, the most chunks first: what its questions are analyzed in too. */
    languages(deploymentId: string): DocumentLanguage[] {
      return db
        .query<DocumentLanguage, [string]>(
          "SELECT lang, COUNT(*) AS documents, SUM(chunk_count) AS chunks FROM documents WHERE deployment_id = ? AND status = 'completed' AND lang IS NOT NULL GROUP BY lang ORDER BY chunks DESC, lang",
        )
        .all(deploymentId);
    },
    statusCounts(deploymentId: string): Record<DocumentStatus, number> {
      const out: Record<DocumentStatus, number> = { stored: 0, queued: 0, processing: 0, completed: 0, failed: 0 };
      for (const r of db
        .query<{ status: DocumentStatus; n: number }, [string]>(
          "SELECT status, COUNT(*) AS n FROM documents WHERE deployment_id = ? GROUP BY status",
        )
        .all(deploymentId))
        out[r.status] = r.n;
      return out;
    },
    pendingDeployments(): string[] {
      return db
        .query<{ d: string }, []>("SELECT DISTINCT deployment_id AS d FROM documents WHERE status IN ('queued', 'processing')")
        .all()
        .map((r) => r.d);
    },
  };
}

export type DocumentsRepo = ReturnType<typeof createDocumentsRepo>;
