import type { Database } from "bun:sqlite";
import { KEYWORD_TOKENIZER } from "../keyword-tokenizer.ts";

/**
 * One FTS5 table per deployment (kw_<n>), external-content over `chunks` (the text is stored once), with an
 * fts5vocab 'row' table beside it for document frequencies. Everything keyword ranking and the grounding gate
 * read about a deployment — BM25's N, average length and document frequencies — comes from its own table, so
 * one tenant's documents can never move another tenant's ranking or reveal which words it holds.
 */

export interface KeywordTable {
  fts: string;
  vocab: string;
}

const names = (n: number): KeywordTable => ({ fts: `kw_${n}`, vocab: `kw_${n}_vocab` });

/** The deployment's table, or null when it has none yet (no chunk was ever indexed for it). */
export function findKeywordTable(db: Database, deploymentId: string): KeywordTable | null {
  const row = db.query<{ n: number }, [string]>("SELECT n FROM keyword_tables WHERE deployment_id = ?").get(deploymentId);
  return row ? names(row.n) : null;
}

/** Creates the deployment's table on first use; call inside the writing transaction (DDL is transactional). */
export function ensureKeywordTable(db: Database, deploymentId: string): KeywordTable {
  const found = findKeywordTable(db, deploymentId);
  if (found) return found;
  const { n } = db
    .query<{ n: number }, [string]>("INSERT INTO keyword_tables (deployment_id) VALUES (?) RETURNING n")
    .get(deploymentId) as { n: number };
  const t = names(n);
  db.run(
    `CREATE VIRTUAL TABLE ${t.fts} USING fts5(text, heading_path, content='chunks', content_rowid='id', tokenize = "${KEYWORD_TOKENIZER}")`,
  );
  db.run(`CREATE VIRTUAL TABLE ${t.vocab} USING fts5vocab(${t.fts}, 'row')`);
  return t;
}

export function allKeywordTables(db: Database): KeywordTable[] {
  return db
    .query<{ n: number }, []>("SELECT n FROM keyword_tables ORDER BY n")
    .all()
    .map((r) => names(r.n));
}

export function dropKeywordTable(db: Database, deploymentId: string): void {
  const t = findKeywordTable(db, deploymentId);
  if (!t) return;
  db.run(`DROP TABLE IF EXISTS ${t.vocab}`);
  db.run(`DROP TABLE IF EXISTS ${t.fts}`);
  db.run("DELETE FROM keyword_tables WHERE deployment_id = ?", [deploymentId]);
}

/**
 * Indexes every deployment that has chunks but no keyword table: after migration 007 replaced the shared
 * index, or if a table was ever lost. Idempotent and safe when several processes open the data dir at once.
 */
export function ensureKeywordTables(db: Database): number {
  const missing = () =>
    db
      .query<{ d: string }, []>(
        // per deployment, one index probe into chunks: opening a data dir never scans every chunk
        "SELECT id AS d FROM deployments WHERE id NOT IN (SELECT deployment_id FROM keyword_tables) AND EXISTS (SELECT 1 FROM chunks WHERE deployment_id = deployments.id)",
      )
      .all()
      .map((r) => r.d);
  if (missing().length === 0) return 0;
  let built = 0;
  db.transaction(() => {
    for (const d of missing()) {
      const t = ensureKeywordTable(db, d);
      db.run(`INSERT INTO ${t.fts} (rowid, text, heading_path) SELECT id, text, heading_path FROM chunks WHERE deployment_id = ?`, [d]);
      built++;
    }
  }).immediate();
  return built;
}
