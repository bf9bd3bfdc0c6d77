import type { Db } from "../db.ts";

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
  createdAt: number;
  updatedAt: number;
}

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
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function createDocumentsRepo(db: Db) {
  const byId = db.query<Row, [string]>("SELECT * FROM documents WHERE id = ?");
  return {
    /** Stores the document row, its bytes and its parsed structure in one transaction. */
    insert(input: {
      id: string;
      deploymentId: string;
      name: string;
      kind: string;
      contentHash: string;
      bytes: Uint8Array;
      parsed: string;
      pages: number | null;
      queue: boolean;
      replaceOnTrain: boolean;
    }): DocumentRecord {
      const at = Date.now();
      return db.transaction(() => {
        db.run(
          `INSERT INTO documents (id, deployment_id, name, kind, content_hash, size, status, pages, replace_on_train, queued_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [input.id, input.deploymentId, input.name, input.kind, input.contentHash, input.bytes.byteLength, input.queue ? "queued" : "stored", input.pages, input.replaceOnTrain ? 1 : 0, input.queue ? at : null, at, at],
        );
        db.run("INSERT INTO document_blobs (document_id, bytes, parsed) VALUES (?, ?, ?)", [input.id, input.bytes, input.parsed]);
        return toRecord(byId.get(input.id) as Row);
      }).immediate();
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
      return db.query<Row, [string]>("SELECT * FROM documents WHERE deployment_id = ? ORDER BY created_at, id").all(deploymentId).map(toRecord);
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
      return db.query<Row, [string, string]>("SELECT * FROM documents WHERE deployment_id = ? AND name = ? ORDER BY created_at").all(deploymentId, name).map(toRecord);
    },
    parsed(id: string): string | null {
      return db.query<{ parsed: string | null }, [string]>("SELECT parsed FROM document_blobs WHERE document_id = ?").get(id)?.parsed ?? null;
    },
    bytes(id: string): Uint8Array | null {
      return db.query<{ bytes: Uint8Array }, [string]>("SELECT bytes FROM document_blobs WHERE document_id = ?").get(id)?.bytes ?? null;
    },
    /** Queues every stored (untrained) or failed document of a deployment; returns how many. */
    queueDeployment(deploymentId: string): number {
      const at = Date.now();
      return db.run("UPDATE documents SET status = 'queued', queued_at = ?, attempts = 0, error_code = NULL, error_message = NULL, updated_at = ? WHERE deployment_id = ? AND status IN ('stored', 'failed')", [at, at, deploymentId]).changes;
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
    /** After a crash, documents left mid-processing go back to the queue. */
    requeueInterrupted(): number {
      return db.run("UPDATE documents SET status = 'queued', updated_at = ? WHERE status = 'processing'", [Date.now()]).changes;
    },
    markCompleted(id: string, chunkCount: number): void {
      db.run("UPDATE documents SET status = 'completed', chunk_count = ?, error_code = NULL, error_message = NULL, updated_at = ? WHERE id = ?", [chunkCount, Date.now(), id]);
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
      db.run("UPDATE documents SET status = 'failed', error_code = ?, error_message = ?, updated_at = ? WHERE id = ?", [code, message, Date.now(), id]);
    },
    deleteRow(id: string): void {
      db.run("DELETE FROM documents WHERE id = ?", [id]);
    },
    statusCounts(deploymentId: string): Record<DocumentStatus, number> {
      const out: Record<DocumentStatus, number> = { stored: 0, queued: 0, processing: 0, completed: 0, failed: 0 };
      for (const r of db.query<{ status: DocumentStatus; n: number }, [string]>("SELECT status, COUNT(*) AS n FROM documents WHERE deployment_id = ? GROUP BY status").all(deploymentId)) out[r.status] = r.n;
      return out;
    },
    pendingDeployments(): string[] {
      return db.query<{ d: string }, []>("SELECT DISTINCT deployment_id AS d FROM documents WHERE status IN ('queued', 'processing')").all().map((r) => r.d);
    },
  };
}

export type DocumentsRepo = ReturnType<typeof createDocumentsRepo>;
