import type { Database } from "bun:sqlite";

/**
 * One FTS5 table per deployment (kw_<n>), with an fts5vocab 'row' table beside it for document frequencies.
 * Everything keyword ranking and the grounding gate read about a deployment — BM25's N, average length and
 * document frequencies — comes from its own table, so one tenant's documents can never move another tenant's
 * ranking or reveal which words it holds.
 *
 * The table holds ANALYZED terms (rag/analyzer: stems, stop words dropped, words segmented), written as
 * space-separated strings by the caller; FTS5's `ascii` tokenizer splits them on the spaces and changes nothing
 * else (terms are lower-cased letters, marks, digits and underscores), so the terms FTS5 counts are exactly the
 * analyzer's — and exactly what the PostgreSQL store counts. Contentless (the text stays in `chunks`), with
 * contentless_delete so a chunk's row is deleted by its id.
 * Tables built before the analyzer (external content over `chunks`, unicode61) are re-analyzed by the keyword
 * reindex (documents/keyword-reindex.ts): `analyzer` says which analysis built each table.
 */
export const KEYWORD_TOKENIZER = "ascii tokenchars '_'";
/** what built the tables of data dirs from before the analyzer: FTS5's own word splitting, no stemming */
export const LEGACY_ANALYZER = "unicode61";

export interface KeywordTable {
  n: number;
  fts: string;
  vocab: string;
  /** the analysis that built it (LEGACY_ANALYZER: external content, deleted with its old values) */
  analyzer: string;
}

const names = (n: number, analyzer: string): KeywordTable => ({ n, fts: `kw_${n}`, vocab: `kw_${n}_vocab`, analyzer });

/** The deployment's table, or null when it has none yet (no chunk was ever indexed for it). */
/**
 * Counts changes to live keyword tables per database (rows written or deleted, tables dropped or swapped), so a
 * cache of document frequencies (term-stats.sqlite.ts) knows when it is stale. One process owns a data dir, so
 * every change to its tables passes through here.
 */
const generations = new WeakMap<Database, number>();
export const keywordGeneration = (db: Database): number => generations.get(db) ?? 0;
export const keywordsChanged = (db: Database): void => {
  generations.set(db, keywordGeneration(db) + 1);
};

export function findKeywordTable(db: Database, deploymentId: string): KeywordTable | null {
  const row = db
    .query<{ n: number; analyzer: string }, [string]>("SELECT n, analyzer FROM keyword_tables WHERE deployment_id = ?")
    .get(deploymentId);
  return row ? names(row.n, row.analyzer) : null;
}

function createTable(db: Database, n: number, analyzer: string): KeywordTable {
  const t = names(n, analyzer);
  db.run(`CREATE VIRTUAL TABLE ${t.fts} USING fts5(terms, heading, content='', contentless_delete=1, tokenize = "${KEYWORD_TOKENIZER}")`);
  db.run(`CREATE VIRTUAL TABLE ${t.vocab} USING fts5vocab(${t.fts}, 'row')`);
  return t;
}

/** A fresh table number (shared by live and rebuilding tables). */
const nextNumber = (db: Database): number =>
  (db
    .query<{ n: number }, []>(
      "SELECT max(n) + 1 AS n FROM (SELECT n FROM keyword_tables UNION ALL SELECT n FROM keyword_reindex UNION ALL SELECT 0 AS n)",
    )
    .get()?.n as number) ?? 1;

/**
 * The analysis new tables are built with: index_meta's `keyword_analyzer`, which the application sets at start
 * (rag/analyzer's version); a table built with another is rebuilt by the keyword reindex.
 */
export const KEYWORD_ANALYZER_META = "keyword_analyzer";
export const currentAnalyzer = (db: Database): string =>
  db.query<{ value: string }, [string]>("SELECT value FROM index_meta WHERE key = ?").get(KEYWORD_ANALYZER_META)?.value ?? "analyzed";

/** Creates the deployment's table on first use; call inside the writing transaction (DDL is transactional). */
export function ensureKeywordTable(db: Database, deploymentId: string): KeywordTable {
  const found = findKeywordTable(db, deploymentId);
  if (found) return found;
  const analyzer = currentAnalyzer(db);
  const n = nextNumber(db);
  db.run("INSERT INTO keyword_tables (n, deployment_id, analyzer) VALUES (?, ?, ?)", [n, deploymentId, analyzer]);
  return createTable(db, n, analyzer);
}

export function allKeywordTables(db: Database): KeywordTable[] {
  return db
    .query<{ n: number; analyzer: string }, []>("SELECT n, analyzer FROM keyword_tables ORDER BY n")
    .all()
    .map((r) => names(r.n, r.analyzer));
}

function dropTable(db: Database, t: { fts: string; vocab: string }): void {
  keywordsChanged(db);
  db.run(`DROP TABLE IF EXISTS ${t.vocab}`);
  db.run(`DROP TABLE IF EXISTS ${t.fts}`);
}

export function dropKeywordTable(db: Database, deploymentId: string): void {
  const t = findKeywordTable(db, deploymentId);
  if (t) dropTable(db, t);
  const r = rebuilding(db, deploymentId);
  if (r) dropTable(db, r);
  db.run("DELETE FROM keyword_tables WHERE deployment_id = ?", [deploymentId]);
  db.run("DELETE FROM keyword_reindex WHERE deployment_id = ?", [deploymentId]);
}

/** Removes chunk rows from a table, whichever way it was built (a legacy table needs each row's old values). */
export function deleteKeywordRows(db: Database, t: KeywordTable, rows: { id: number; text: string; heading_path: string }[]): void {
  keywordsChanged(db);
  if (t.analyzer === LEGACY_ANALYZER) {
    const del = db.query(`INSERT INTO ${t.fts} (${t.fts}, rowid, text, heading_path) VALUES ('delete', ?, ?, ?)`);
    for (const r of rows) del.run(r.id, r.text, r.heading_path);
  } else {
    const del = db.query(`DELETE FROM ${t.fts} WHERE rowid = ?`);
    for (const r of rows) del.run(r.id);
  }
}

/** The table a deployment's index is being rebuilt into, if a rebuild is under way. */
export function rebuilding(db: Database, deploymentId: string): (KeywordTable & { lastId: number }) | null {
  const r = db
    .query<{ n: number; analyzer: string; last_id: number }, [string]>(
      "SELECT n, analyzer, last_id FROM keyword_reindex WHERE deployment_id = ?",
    )
    .get(deploymentId);
  return r ? { ...names(r.n, r.analyzer), lastId: r.last_id } : null;
}

/**
 * The rebuild table of a deployment for `analyzer`, created (empty, progress 0) when there is none or it was
 * started for another analyzer. Progress (the last chunk id written) is kept with it, so a killed rebuild resumes.
 */
export function ensureRebuildTable(db: Database, deploymentId: string, analyzer: string): KeywordTable & { lastId: number } {
  const r = rebuilding(db, deploymentId);
  if (r && r.analyzer === analyzer) return r;
  if (r) {
    dropTable(db, r);
    db.run("DELETE FROM keyword_reindex WHERE deployment_id = ?", [deploymentId]);
  }
  const n = nextNumber(db);
  db.run("INSERT INTO keyword_reindex (deployment_id, n, analyzer, last_id) VALUES (?, ?, ?, 0)", [deploymentId, n, analyzer]);
  return { ...createTable(db, n, analyzer), lastId: 0 };
}

/** Deployments whose index must be rebuilt for `analyzer`: built by another analysis, marked stale, or missing. */
export function pendingRebuilds(db: Database, analyzer: string): { deploymentId: string; chunks: number }[] {
  return db
    .query<{ deploymentId: string; chunks: number }, [string]>(
      `SELECT d.id AS deploymentId, (SELECT count(*) FROM chunks c WHERE c.deployment_id = d.id) AS chunks FROM deployments d
       LEFT JOIN keyword_tables k ON k.deployment_id = d.id
       WHERE (k.n IS NULL AND EXISTS (SELECT 1 FROM chunks c WHERE c.deployment_id = d.id)) OR k.analyzer <> ?1 OR k.stale = 1
       ORDER BY d.id`,
    )
    .all(analyzer);
}

/** Marks a deployment's index for rebuilding (its owner pinned other languages). */
export function markStale(db: Database, deploymentId: string): void {
  db.run("UPDATE keyword_tables SET stale = 1 WHERE deployment_id = ?", [deploymentId]);
}

/** The rebuilt table replaces the live one (call in the transaction that wrote its last rows). */
export function swapInRebuilt(db: Database, deploymentId: string): void {
  const r = rebuilding(db, deploymentId);
  if (!r) return;
  keywordsChanged(db);
  const old = findKeywordTable(db, deploymentId);
  if (old) dropTable(db, old);
  db.run("DELETE FROM keyword_tables WHERE deployment_id = ?", [deploymentId]);
  db.run("INSERT INTO keyword_tables (n, deployment_id, analyzer) VALUES (?, ?, ?)", [r.n, deploymentId, r.analyzer]);
  db.run("DELETE FROM keyword_reindex WHERE deployment_id = ?", [deploymentId]);
}
