/**
 * `docchat db copy` (issue 12, moving up): an SQLite data dir into a PostgreSQL database, row for row, then
 * verified table by table. The copy is ONE PostgreSQL transaction (an interrupted copy leaves the target as it
 * was), the SQLite side is read inside one read transaction (a consistent snapshot even while CLI commands write),
 * and a data dir a live server holds is refused: the server would go on writing to SQLite after the copy.
 * Ids are kept (keys keep working: only their hashes exist anyway; chat logs keep naming their corrections), the
 * keyword postings are rebuilt by the PostgreSQL chunk index from the copied chunks, vectors go from sqlite-vec to
 * pgvector with the recorded dimension, and identity sequences continue after the largest id.
 */
import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
// Bun.SQL is read where a connection is made: importing it evaluates Bun's SQL module on every start (~5 ms before /health).
import type { SQL } from "bun";
import { type NewChunk, stagingDeployment } from "../contract/chunk-index.contract.ts";
import { serverHoldingDataDir } from "../data-dir-lock.ts";
import { createPgChunkIndex, type PgChunkIndex } from "../postgres/chunk-index.pg.ts";
import { migratePg } from "../postgres/migrate.pg.ts";
import { describePgUrl } from "../postgres/pg-store.ts";
import { pgConnectOptions } from "../postgres/pg-url.ts";
import { closeDatabase, openDatabase } from "../sqlite/db.ts";
import {
  compare,
  PAGE_ROWS,
  pgColumns,
  type Row,
  sqliteColumns,
  sqlitePages,
  sqliteVectors,
  type TableReport,
  VEC_TABLE,
} from "./copy-pages.ts";
import { vectorFromBlob } from "../shared/vector-blob.ts";

export type { TableReport } from "./copy-pages.ts";

/**
 * Every table copied, in foreign-key order, with the columns that order it (its primary key). The texts are
 * constants of this file (never input): they are spliced into the few statements Bun.sql's helpers can't build.
 */
export const COPY_TABLES: { table: string; key: string[] }[] = [
  { table: "accounts", key: ["id"] },
  { table: "token_ledger", key: ["id"] },
  { table: "deployments", key: ["id"] },
  { table: "api_keys", key: ["id"] },
  { table: "documents", key: ["id"] },
  { table: "document_blobs", key: ["document_id"] },
  { table: "document_parts", key: ["document_id", "part", "seq"] },
  { table: "conversations", key: ["id"] },
  { table: "chat_logs", key: ["id"] },
  { table: "corrections", key: ["id"] },
  { table: "leads", key: ["id"] },
  { table: "mail_outbox", key: ["id"] },
  { table: "webhook_endpoints", key: ["id"] },
  { table: "webhook_deliveries", key: ["id"] },
  { table: "owner_sessions", key: ["id_hash"] },
  { table: "owner_login_attempts", key: ["id"] },
  { table: "deployment_policies", key: ["deployment_id"] },
  { table: "report_rollups", key: ["deployment_id", "bucket"] },
  { table: "erasures", key: ["id"] },
  { table: "test_questions", key: ["id"] },
  { table: "test_runs", key: ["id"] },
  { table: "test_results", key: ["run_id", "test_question_id"] },
  { table: "embedding_cache", key: ["embedder_id", "text_hash"] },
  { table: "index_meta", key: ["key"] },
  { table: "chunks", key: ["id"] },
];

/** Tables whose `id` is an identity column in PostgreSQL: their sequences continue after the copied ids. */
const IDENTITY_TABLES = [
  "accounts",
  "token_ledger",
  "api_keys",
  "chat_logs",
  "corrections",
  "leads",
  "mail_outbox",
  "webhook_deliveries",
  "owner_login_attempts",
  "erasures",
  "test_questions",
  "test_runs",
  "chunks",
];

/** transaction-scoped advisory lock serialising copies into one database */
const COPY_LOCK = 7_201_514;

export interface CopyReport {
  from: string;
  to: string;
  /** copied: the target was empty and now holds the copy; unchanged: it already held exactly this data */
  action: "copied" | "unchanged";
  ok: boolean;
  tables: TableReport[];
  /** chunks with keyword postings in PostgreSQL, and how many the data dir has outside staging (must be equal) */
  keyword_indexed_chunks: number;
  keyword_expected_chunks: number;
  vector_dimension: number | null;
  ms: number;
}

export class CopyRefused extends Error {}

async function copyChunks(
  db: Database,
  tx: SQL,
  index: PgChunkIndex,
  columns: string[],
  withVectors: boolean,
  analyze: CopyAnalyzer,
): Promise<void> {
  const pinnedOf = db.query<{ languages: string }, [string]>("SELECT languages FROM deployments WHERE id = ?");
  const vectorQuery = withVectors
    ? db.query<{ embedding: Uint8Array }, [number]>(`SELECT embedding FROM ${VEC_TABLE} WHERE rowid = ?`)
    : null;
  const vectorOf = (id: number): Float32Array | undefined => {
    const e = vectorQuery?.get(id)?.embedding;
    return e ? vectorFromBlob(e) : undefined;
  };
  const flush = async (rows: Row[]) => {
    if (rows.length === 0) return;
    refuseUnstorable("chunks", ["id"], rows);
    const first = rows[0] as Row;
    const deploymentId = first.deployment_id as string;
    if (deploymentId === stagingDeployment(first.document_id as string)) {
      // a large document's chunks staged before publishing: no keyword rows, no vectors (kw_length NULL)
      await tx`INSERT INTO chunks ${tx(rows, ...columns)}`;
      return;
    }
    const pinned = (pinnedOf.get(deploymentId)?.languages ?? "").split(",").filter(Boolean);
    const analyzed = analyze(
      rows.map((r) => ({
        documentId: r.document_id as string,
        text: r.text as string,
        headingPath: r.heading_path as string,
        lang: (r.lang as string | null) ?? null,
      })),
      pinned,
    );
    const terms = new Map(rows.map((r, i) => [r, analyzed[i] as { lang: string; terms: string; headingTerms: string }]));
    const toChunk = (r: Row): NewChunk => ({
      ord: r.ord as number,
      source: r.source as string,
      text: r.text as string,
      headingPath: r.heading_path as string,
      pageStart: (r.page_start as number | null) ?? undefined,
      pageEnd: (r.page_end as number | null) ?? undefined,
      rowStart: (r.row_start as number | null) ?? undefined,
      rowEnd: (r.row_end as number | null) ?? undefined,
      tokenCount: r.token_count as number,
      textHash: r.text_hash as string,
      vector: vectorOf(r.id as number),
      ...(terms.get(r) as { lang: string; terms: string; headingTerms: string }),
      // the copy keeps the row as it was (verified by checksum): a chunk trained before languages were recorded has none
      lang: (r.lang as string | null) ?? null,
    });
    // consecutive rows of one document form one item (ids kept)
    const docs: { documentId: string; chunks: NewChunk[]; ids: number[] }[] = [];
    for (const r of rows) {
      let d = docs[docs.length - 1];
      if (!d || d.documentId !== r.document_id) {
        d = { documentId: r.document_id as string, chunks: [], ids: [] };
        docs.push(d);
      }
      d.chunks.push(toChunk(r));
      d.ids.push(r.id as number);
    }
    await index.insertMany(deploymentId, docs, tx);
  };
  // by deployment, in id order within it: up to PAGE_ROWS chunks of one deployment (of many documents) per insert,
  // since each insert rewrites the deployment's keyword statistics (one call per small document: 2,000 abstracts
  // took 35 s, the rows' versions piling up in the one transaction)
  const stmt = db.query<Row, []>(`SELECT ${columns.join(", ")} FROM chunks ORDER BY deployment_id, id`);
  let batch: Row[] = [];
  try {
    for (const r of stmt.iterate()) {
      const head = batch[0];
      if (head && (head.deployment_id !== r.deployment_id || batch.length >= PAGE_ROWS)) {
        await flush(batch);
        batch = [];
      }
      batch.push(r);
    }
    await flush(batch);
  } finally {
    vectorQuery?.finalize();
  }
}

const rowName = (key: string[], r: Row) => key.map((k) => `${k} ${JSON.stringify(r[k])}`).join(", ");

/**
 * SQLite stores a NUL character in text; PostgreSQL cannot. Older versions let one in (a visitor's question), so
 * the copy names every such value of the page — table, row and column, with the statement that fixes it in the
 * data dir — instead of failing somewhere inside one big INSERT.
 */
function refuseUnstorable(table: string, key: string[], rows: Row[]): void {
  const found: string[] = [];
  for (const r of rows)
    for (const [column, v] of Object.entries(r))
      if (typeof v === "string" && v.includes("\0")) found.push(`${table} row ${rowName(key, r)}, column ${column}`);
  if (found.length === 0) return;
  const first = rows.find((r) => Object.values(r).some((v) => typeof v === "string" && v.includes("\0"))) as Row;
  const column = Object.keys(first).find((c) => typeof first[c] === "string" && (first[c] as string).includes("\0")) as string;
  const where = key
    .map((k) => `${k} = ${typeof first[k] === "number" ? first[k] : `'${String(first[k]).replace(/'/g, "''")}'`}`)
    .join(" AND ");
  throw new CopyRefused(
    `PostgreSQL cannot store the NUL character found in ${found.slice(0, 10).join("; ")}${found.length > 10 ? ` and ${found.length - 10} more` : ""}. ` +
      `Nothing was copied. Remove it in the data dir, e.g. sqlite3 docchat.db "UPDATE ${table} SET ${column} = replace(${column}, char(0), '') WHERE ${where}", then run db copy again.`,
  );
}
/**
 * The keyword analyzer (rag/analyzer), given by the caller since the store does not analyze: a batch of one
 * deployment's chunks (with the languages its owner pinned) → each chunk's language and terms.
 */
export type CopyAnalyzer = (
  chunks: { documentId: string; text: string; headingPath: string; lang: string | null }[],
  pinned: string[],
) => { lang: string; terms: string; headingTerms: string }[];

export interface CopyOptions {
  progress?: (line: string) => void;
  analyze: CopyAnalyzer;
}

/** What the copy reads each table with: its columns (the data dir's), and those PostgreSQL keeps as bytea. */
interface Columns {
  columns: Map<string, string[]>;
  bytea: Map<string, string[]>;
}

/** Step: the data dir must hold a database no server is using. */
function refuseUnlessCopyable(from: string): void {
  if (!existsSync(join(from, "docchat.db"))) throw new CopyRefused(`${from} holds no docchat database (docchat.db)`);
  const holder = serverHoldingDataDir(from);
  if (holder !== null) {
    throw new CopyRefused(
      `a docchat server (pid ${holder}) is using ${from}; stop it first, so nothing it writes after the copy is left behind`,
    );
  }
}

/** Step: every column of the data dir's tables must exist in PostgreSQL (an older binary would drop data). */
async function matchColumns(db: Database, sql: SQL): Promise<Columns> {
  const columns = new Map<string, string[]>();
  const bytea = new Map<string, string[]>();
  for (const { table } of COPY_TABLES) {
    const src = sqliteColumns(db, table);
    const target = await pgColumns(sql, table);
    const dst = new Set(target.map((c) => c.name));
    bytea.set(
      table,
      target.filter((c) => c.type === "bytea").map((c) => c.name),
    );
    const missing = src.filter((c) => !dst.has(c));
    if (missing.length > 0)
      throw new Error(`PostgreSQL table ${table} lacks column(s) ${missing.join(", ")}: is this docchat binary older than the data dir?`);
    columns.set(table, src);
  }
  return { columns, bytea };
}

/** Step (a target that holds data): it must hold exactly this data — db copy never merges. */
async function confirmSameData(db: Database, sql: SQL, c: Columns, names: { from: string; to: string }, progress: (line: string) => void) {
  progress(`${names.to} is not empty: comparing it with ${names.from} …`);
  const tables = await compare(COPY_TABLES, db, sql, c.columns, c.bytea, progress);
  const differ = tables.filter((t) => !t.equal);
  if (differ.length > 0) {
    throw new CopyRefused(
      `${names.to} is not empty and does not hold a copy of ${names.from} (differs in ${differ.map((t) => `${t.table}: ${t.target_rows} rows there, ${t.source_rows} here`).join("; ")}). ` +
        "db copy never merges into existing data: copy into a new, empty database.",
    );
  }
  return tables;
}

/**
 * Step (an empty target): every table in ONE transaction — locked against a second copy, checked still empty, the
 * vector table made for the recorded dimension, the tables in foreign-key order (chunks through the chunk index, so
 * their keyword postings are built), and the identity sequences continued after the copied ids.
 */
async function copyAll(
  db: Database,
  sql: SQL,
  c: Columns,
  dimension: number | null,
  to: string,
  opts: { progress: (line: string) => void; analyze: CopyAnalyzer },
) {
  const { progress } = opts;
  const index = await createPgChunkIndex(sql);
  await sql.begin(async (tx) => {
    // two copies started at once into one database: the second waits here, then finds it no longer empty
    await tx`SELECT pg_advisory_xact_lock(${COPY_LOCK})`;
    const taken = await Promise.all(
      COPY_TABLES.map(async ({ table }) => ((await tx`SELECT EXISTS (SELECT 1 FROM ${tx(table)}) AS ok`) as Row[])[0]?.ok),
    );
    if (taken.some(Boolean))
      throw new CopyRefused(`${to} was filled by someone else while this copy started; run db copy again to compare`);
    // the vector table for the recorded dimension, in this transaction (an empty target has no vectors to lose)
    await index.createVectorTable(dimension, tx, { deferHnsw: true });
    for (const { table, key } of COPY_TABLES) {
      const cols = c.columns.get(table) as string[];
      progress(`copying ${table} …`);
      if (table !== "chunks") {
        await sqlitePages(db, c.bytea)(table, cols, key, async (rows) => {
          refuseUnstorable(table, key, rows);
          await tx`INSERT INTO ${tx(table)} ${tx(rows, ...cols)}`.catch((e: unknown) => {
            throw new Error(`copying ${table} (${rowName(key, rows[0] as Row)} to ${rowName(key, rows.at(-1) as Row)}): ${(e as Error).message}`);
          });
        });
        continue;
      }
      await copyChunks(db, tx, index, cols, dimension !== null, opts.analyze);
      if (dimension !== null) {
        progress("building the vector index …");
        await index.buildVectorIndex(tx);
      }
    }
    for (const table of IDENTITY_TABLES) {
      await tx`SELECT setval(pg_get_serial_sequence(${table}, 'id'), coalesce((SELECT max(id) FROM ${tx(table)}), 1), (SELECT count(*) > 0 FROM ${tx(table)}))`;
    }
  });
}

/** Step: chunks with keyword postings in PostgreSQL, and the data dir's chunks outside staging (they must be equal). */
async function keywordCoverage(db: Database, sql: SQL): Promise<{ indexed: number; published: number }> {
  const indexed = Number(((await sql`SELECT count(*) AS n FROM chunks WHERE kw_length IS NOT NULL`) as Row[])[0]?.n ?? 0);
  const published = db.query<{ n: number }, []>("SELECT count(*) AS n FROM chunks WHERE deployment_id NOT LIKE '~staging:%'").get()?.n ?? 0;
  return { indexed, published };
}

/**
 * Copies the data dir's database into the PostgreSQL database at `url` (migrated first), or finds it already holds
 * exactly this data (a re-run: nothing written). Refuses (CopyRefused) a data dir a server holds and a target that
 * holds other data. Returns the per-table verification; `ok` is false when a table differs after the copy.
 */
export async function copySqliteToPg(dataDir: string, url: string, opts: CopyOptions): Promise<CopyReport> {
  const started = performance.now();
  const progress = opts.progress ?? (() => {});
  const from = resolve(dataDir);
  const to = describePgUrl(url);
  refuseUnlessCopyable(from);
  const db = await openDatabase(from);
  const sql = new Bun.SQL(url, { ...pgConnectOptions(url), max: 2 });
  try {
    // one read transaction: every table from the same moment, whatever CLI commands write meanwhile
    db.run("BEGIN");
    try {
      await sql`SELECT 1`.catch((e: unknown) => {
        throw new Error(`cannot connect to PostgreSQL at ${to}: ${(e as Error).message}`);
      });
      progress(`migrating ${to} …`);
      await migratePg(sql);
      const columns = await matchColumns(db, sql);
      const counts = await Promise.all(
        COPY_TABLES.map(async ({ table }) => Number(((await sql`SELECT count(*) AS n FROM ${sql(table)}`) as Row[])[0]?.n ?? 0)),
      );
      const { dimension } = sqliteVectors(db);
      const filled = counts.some((n) => n > 0);
      const action: CopyReport["action"] = filled ? "unchanged" : "copied";
      let tables: TableReport[];
      if (filled) tables = await confirmSameData(db, sql, columns, { from, to }, progress);
      else {
        await copyAll(db, sql, columns, dimension, to, { progress, analyze: opts.analyze });
        // after a copy, read both sides back (a re-run already compared them and wrote nothing)
        tables = await compare(COPY_TABLES, db, sql, columns.columns, columns.bytea, progress);
      }
      const { indexed, published } = await keywordCoverage(db, sql);
      return {
        from,
        to,
        action,
        ok: tables.every((t) => t.equal) && indexed === published,
        tables,
        keyword_indexed_chunks: indexed,
        keyword_expected_chunks: published,
        vector_dimension: dimension,
        ms: Math.round(performance.now() - started),
      };
    } finally {
      db.run("COMMIT");
    }
  } finally {
    await sql.close();
    closeDatabase(db);
  }
}
