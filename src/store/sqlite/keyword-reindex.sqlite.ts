import type { ChunkIndexStore, ReanalyzedChunk, ReindexChunk } from "../contract/chunk-index.contract.ts";
import type { Db } from "./db.ts";
import { ensureRebuildTable, markStale, pendingRebuilds, rebuilding, swapInRebuilt } from "./keyword-tables.ts";

type KeywordReindex = Pick<
  ChunkIndexStore,
  "keywordReindexPending" | "keywordReindexNext" | "keywordReindexWrite" | "keywordReindexFinish" | "keywordReindexRequest"
>;

/**
 * Rebuilding a deployment's keyword table with another analysis (an upgrade, or pinned languages) on SQLite: a new
 * table filled in batches — each batch one transaction with its progress — while the old one answers, swapped in
 * at the end (keyword-tables.ts). The PostgreSQL twin is postgres/keyword-reindex.pg.ts.
 */
export function createSqliteKeywordReindex(db: Db): KeywordReindex {
  function writeBatch(deploymentId: string, analyzer: string, batch: ReanalyzedChunk[]): void {
    const t = ensureRebuildTable(db, deploymentId, analyzer);
    const rows = batch.filter((r) => r.id > t.lastId);
    if (rows.length === 0) return;
    const put = db.query(`INSERT INTO ${t.fts} (rowid, terms, heading) VALUES (?, ?, ?)`);
    const setLang = db.query("UPDATE chunks SET lang = ? WHERE id = ?");
    for (const r of rows) {
      put.run(r.id, r.terms, r.headingTerms);
      setLang.run(r.lang, r.id);
    }
    db.run("UPDATE keyword_reindex SET last_id = ? WHERE deployment_id = ?", [Math.max(...rows.map((r) => r.id)), deploymentId]);
  }
  function finish(deploymentId: string, analyzer: string): boolean {
    const t = ensureRebuildTable(db, deploymentId, analyzer);
    if (db.query("SELECT 1 FROM chunks WHERE deployment_id = ? AND id > ? LIMIT 1").get(deploymentId, t.lastId)) return false;
    swapInRebuilt(db, deploymentId);
    db.run(
      "UPDATE documents SET lang = (SELECT c.lang FROM chunks c WHERE c.document_id = documents.id AND c.lang IS NOT NULL GROUP BY c.lang ORDER BY count(*) DESC, c.lang LIMIT 1) WHERE deployment_id = ? AND status = 'completed'",
      [deploymentId],
    );
    return true;
  }
  return {
    async keywordReindexPending(analyzer) {
      return pendingRebuilds(db, analyzer);
    },
    async keywordReindexNext(deploymentId, analyzer, limit) {
      const next = rebuilding(db, deploymentId);
      const after = next && next.analyzer === analyzer ? next.lastId : 0;
      return db
        .query<ReindexChunk, [string, number, number]>(
          "SELECT id, document_id AS documentId, text, heading_path AS headingPath, lang FROM chunks WHERE deployment_id = ? AND id > ? ORDER BY id LIMIT ?",
        )
        .all(deploymentId, after, limit);
    },
    // one short transaction per batch: its rows and its progress commit together
    async keywordReindexWrite(deploymentId, analyzer, batch) {
      if (batch.length > 0) db.transaction(() => writeBatch(deploymentId, analyzer, batch)).immediate();
    },
    async keywordReindexFinish(deploymentId, analyzer) {
      return db.transaction(() => finish(deploymentId, analyzer)).immediate();
    },
    async keywordReindexRequest(deploymentId) {
      markStale(db, deploymentId);
    },
  };
}
