import { Database } from "bun:sqlite";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { openDatabaseFile } from "./db.ts";
import { migrations } from "./migrations/index.ts";
import { extractVecExtension } from "./vec-extension.ts";

export interface SqliteDiagnostics {
  sqlite_version: string;
  fts5: { ok: boolean; error?: string };
  sqlite_vec: { ok: boolean; version?: string; path?: string; error?: string };
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** What this SQLite build can do, checked on a scratch in-memory database. `vecDir` is where vec0 is extracted. */
export async function sqliteDiagnostics(vecDir: string): Promise<SqliteDiagnostics> {
  const db = new Database(":memory:");
  try {
    const version = db.query<{ v: string }, []>("SELECT sqlite_version() AS v").get()?.v ?? "unknown";
    let fts5: SqliteDiagnostics["fts5"];
    try {
      db.run("CREATE VIRTUAL TABLE doctor_fts USING fts5(body)");
      db.run("INSERT INTO doctor_fts (body) VALUES ('grounded answers')");
      const hit = db.query("SELECT rowid FROM doctor_fts WHERE doctor_fts MATCH 'grounded'").get();
      fts5 = hit ? { ok: true } : { ok: false, error: "FTS5 query returned nothing" };
    } catch (e) {
      fts5 = { ok: false, error: message(e) };
    }
    let vec: SqliteDiagnostics["sqlite_vec"];
    try {
      const path = await extractVecExtension(vecDir);
      db.loadExtension(path);
      const v = db.query<{ v: string }, []>("SELECT vec_version() AS v").get()?.v;
      db.run("CREATE VIRTUAL TABLE doctor_vec USING vec0(embedding float[2])");
      vec = { ok: true, version: v, path };
    } catch (e) {
      vec = { ok: false, error: message(e) };
    }
    return { sqlite_version: version, fts5, sqlite_vec: vec };
  } finally {
    db.close();
  }
}

export interface DatabaseInfo {
  path: string;
  exists: boolean;
  bytes?: number;
  journal_mode?: string;
  schema_version?: number;
  latest_schema_version: number;
  /** the embedder the vector index was built with ("openai:nomic-embed-text@768", "none"), when recorded */
  index_embedder?: string | null;
  error?: string;
}

/** The data dir's database as it is now, opened read-only (nothing is created or migrated). */
export async function databaseInfo(dataDir: string): Promise<DatabaseInfo> {
  const path = join(dataDir, "docchat.db");
  const latest = migrations.at(-1)?.version ?? 0;
  if (!existsSync(path)) return { path, exists: false, latest_schema_version: latest };
  const info: DatabaseInfo = { path, exists: true, bytes: statSync(path).size, latest_schema_version: latest };
  try {
    const db = await openDatabaseFile(path, { vecDir: dataDir, readonly: true });
    try {
      info.journal_mode = db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode;
      const hasTable = db.query("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'").get();
      info.schema_version = hasTable
        ? (db.query<{ v: number | null }, []>("SELECT max(version) AS v FROM schema_migrations").get()?.v ?? 0)
        : 0;
      const hasMeta = db.query("SELECT 1 FROM sqlite_master WHERE name = 'index_meta'").get();
      info.index_embedder = hasMeta
        ? (db.query<{ value: string }, []>("SELECT value FROM index_meta WHERE key = 'embedder'").get()?.value ?? null)
        : null;
    } finally {
      db.close();
    }
  } catch (e) {
    info.error = message(e);
  }
  return info;
}

/** The keyword index as `docchat doctor` reports it: what is still to re-analyze, and the documents' languages. */
export interface KeywordIndexInfo {
  /** deployments whose index another analysis built, that were marked for re-analysis, or that have none */
  pending_deployments: number;
  pending_chunks: number;
  /** languages of the trained documents across all deployments, the most chunks first */
  languages: { lang: string; documents: number; chunks: number }[];
}

/** Read-only: the data dir's keyword index against `analyzer` (rag/analyzer's version). */
export async function keywordIndexInfo(dataDir: string, analyzer: string): Promise<KeywordIndexInfo | null> {
  const path = join(dataDir, "docchat.db");
  if (!existsSync(path)) return null;
  const db = await openDatabaseFile(path, { vecDir: dataDir, readonly: true });
  try {
    if (!db.query("SELECT 1 FROM pragma_table_info('keyword_tables') WHERE name = 'analyzer'").get()) return null;
    const pending = db
      .query<{ deployments: number; chunks: number }, [string]>(
        `SELECT count(*) AS deployments, coalesce(sum((SELECT count(*) FROM chunks c WHERE c.deployment_id = d.id)), 0) AS chunks
         FROM deployments d LEFT JOIN keyword_tables k ON k.deployment_id = d.id
         WHERE (k.n IS NULL AND EXISTS (SELECT 1 FROM chunks c WHERE c.deployment_id = d.id)) OR k.analyzer <> ?1 OR k.stale = 1`,
      )
      .get(analyzer);
    const languages = db
      .query<{ lang: string; documents: number; chunks: number }, []>(
        "SELECT coalesce(lang, '?') AS lang, count(*) AS documents, sum(chunk_count) AS chunks FROM documents WHERE status = 'completed' GROUP BY lang ORDER BY chunks DESC",
      )
      .all();
    return { pending_deployments: pending?.deployments ?? 0, pending_chunks: pending?.chunks ?? 0, languages };
  } finally {
    db.close();
  }
}
