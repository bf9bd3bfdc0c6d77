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
import { SQL } from "bun";
import { type NewChunk, stagingDeployment } from "../contract/chunk-index.contract.ts";
import { serverHoldingDataDir } from "../data-dir-lock.ts";
import { createPgChunkIndex, type PgChunkIndex } from "../postgres/chunk-index.pg.ts";
import { migratePg } from "../postgres/migrate.pg.ts";
import { describePgUrl } from "../postgres/pg-store.ts";
import { pgConnectOptions } from "../postgres/pg-url.ts";
import { closeDatabase, openDatabase } from "../sqlite/db.ts";

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

const VEC_TABLE = "chunks_vec";
/** transaction-scoped advisory lock serialising copies into one database */
const COPY_LOCK = 7_201_514;
const PAGE_ROWS = 1000;
/** bytes of row data read and written per batch (document blobs can be megabytes each) */
const PAGE_BYTES = 16 * 1024 * 1024;

export interface TableReport {
  table: string;
  source_rows: number;
  target_rows: number;
  source_checksum: string;
  target_checksum: string;
  equal: boolean;
}

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

type Row = Record<string, unknown>;

/** One value as text, the same way whichever engine it came from (COPY's text format: \N for NULL). */
function canonical(v: unknown): string {
  if (v === null || v === undefined) return "\\N";
  if (v instanceof Uint8Array) return `\\x${v.byteLength}:${new Bun.CryptoHasher("md5").update(v).digest("hex")}`;
  if (typeof v === "boolean") return v ? "1" : "0";
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  return String(v).replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");
}

const rowBytes = (r: Row) => {
  let n = 0;
  for (const v of Object.values(r)) n += v instanceof Uint8Array ? v.byteLength : typeof v === "string" ? v.length : 8;
  return n;
};

/** Reads `table` page by page in key order from either side; `f` gets each page. */
type PageReader = (table: string, columns: string[], key: string[], f: (rows: Row[]) => Promise<void> | void) => Promise<void>;

/**
 * SQLite lets a BLOB column hold text (document_parts keeps prepared chunks as JSON text); bytea takes bytes, so
 * such values travel (and are checksummed) as their UTF-8 bytes. `bytea`: the byte columns of each table.
 */
function sqlitePages(db: Database, bytea: Map<string, string[]>): PageReader {
  return async (table, columns, key, f) => {
    const stmt = db.query<Row, []>(`SELECT ${columns.join(", ")} FROM ${table} ORDER BY ${key.join(", ")}`);
    const byteColumns = bytea.get(table) ?? [];
    let page: Row[] = [];
    let bytes = 0;
    for (const r of stmt.iterate()) {
      for (const c of byteColumns) if (typeof r[c] === "string") r[c] = Buffer.from(r[c] as string, "utf8");
      page.push(r);
      bytes += rowBytes(r);
      if (page.length >= PAGE_ROWS || bytes >= PAGE_BYTES) {
        await f(page);
        page = [];
        bytes = 0;
      }
    }
    if (page.length > 0) await f(page);
  };
}

function pgPages(sql: SQL): PageReader {
  return async (table, columns, key, f) => {
    const textColumns = new Set(
      (
        (await sql`SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table} AND data_type = 'text'`) as Row[]
      ).map((r) => r.column_name as string),
    );
    // key order as SQLite's BINARY collation: bytes, not the database's locale
    const keyed = key.map((k) => (textColumns.has(k) ? `${k} COLLATE "C"` : k));
    const order = keyed.join(", ");
    const after = `(${keyed.join(", ")}) > (${key.map((_, i) => `$${i + 2}`).join(", ")})`;
    // table, columns and key are this file's constants and the catalog's names, never input; values are parameters.
    // Keyset pages (after the last key seen), not OFFSET: skipping rows re-read them on every page.
    const first = `SELECT ${columns.join(", ")} FROM ${table} ORDER BY ${order} LIMIT $1`;
    const next = `SELECT ${columns.join(", ")} FROM ${table} WHERE ${after} ORDER BY ${order} LIMIT $1`;
    const pageRows = table === "document_blobs" || table === "document_parts" ? 16 : PAGE_ROWS;
    let last: Row | null = null;
    for (;;) {
      const rows = (await (last
        ? sql.unsafe(next, [pageRows, ...key.map((k) => (last as Row)[k])])
        : sql.unsafe(first, [pageRows]))) as Row[];
      if (rows.length > 0) await f(rows);
      if (rows.length < pageRows) break;
      last = rows[rows.length - 1] as Row;
    }
  };
}

async function checksum(read: PageReader, table: string, columns: string[], key: string[]): Promise<{ rows: number; md5: string }> {
  const h = new Bun.CryptoHasher("md5");
  let rows = 0;
  await read(table, columns, key, (page) => {
    for (const r of page) h.update(`${columns.map((c) => canonical(r[c])).join("\t")}\n`);
    rows += page.length;
  });
  return { rows, md5: h.digest("hex") };
}

/** The vectors of sqlite-vec as rows (chunk_id, embedding as float32 bytes), for counting and checksums. */
function sqliteVectors(db: Database): { dimension: number | null; read: PageReader } {
  const ddl = db.query<{ sql: string }, [string]>("SELECT sql FROM sqlite_master WHERE name = ?").get(VEC_TABLE)?.sql ?? null;
  const dimension = ddl ? Number(/float\[(\d+)\]/.exec(ddl)?.[1] ?? Number.NaN) : null;
  if (dimension !== null && !Number.isInteger(dimension)) throw new Error(`cannot read the vector dimension of ${VEC_TABLE}: ${ddl}`);
  return {
    dimension,
    read: async (_t, _c, _k, f) => {
      if (dimension === null) return;
      const stmt = db.query<{ chunk_id: number; embedding: Uint8Array }, []>(
        `SELECT rowid AS chunk_id, embedding FROM ${VEC_TABLE} ORDER BY rowid`,
      );
      let page: Row[] = [];
      for (const r of stmt.iterate()) {
        page.push({ chunk_id: r.chunk_id, embedding: new Uint8Array(r.embedding) });
        if (page.length >= PAGE_ROWS) {
          await f(page);
          page = [];
        }
      }
      if (page.length > 0) await f(page);
    },
  };
}

function pgVectors(sql: SQL): PageReader {
  return async (_t, _c, _k, f) => {
    if (!(((await sql`SELECT to_regclass('chunk_vectors') IS NOT NULL AS ok`) as Row[])[0]?.ok as boolean)) return;
    let after = -1;
    for (;;) {
      const rows =
        (await sql`SELECT chunk_id, embedding::text AS v FROM chunk_vectors WHERE chunk_id > ${after} ORDER BY chunk_id LIMIT ${PAGE_ROWS}`) as Row[];
      if (rows.length === 0) break;
      await f(
        rows.map((r) => {
          const v = Float32Array.from(JSON.parse(r.v as string) as number[]);
          return { chunk_id: Number(r.chunk_id), embedding: new Uint8Array(v.buffer) };
        }),
      );
      after = Number(rows[rows.length - 1]?.chunk_id);
    }
  };
}

function sqliteColumns(db: Database, table: string): string[] {
  return db
    .query<{ name: string }, []>(`PRAGMA table_info(${table})`)
    .all()
    .map((r) => r.name);
}

async function pgColumns(sql: SQL, table: string): Promise<{ name: string; type: string }[]> {
  return (
    (await sql`SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position`) as Row[]
  ).map((r) => ({ name: r.column_name as string, type: r.data_type as string }));
}

async function compare(
  db: Database,
  sql: SQL,
  columns: Map<string, string[]>,
  bytea: Map<string, string[]>,
  progress: (line: string) => void,
): Promise<TableReport[]> {
  const out: TableReport[] = [];
  const [src, dst] = [sqlitePages(db, bytea), pgPages(sql)];
  for (const { table, key } of COPY_TABLES) {
    progress(`verifying ${table} …`);
    const cols = columns.get(table) as string[];
    const [a, b] = [await checksum(src, table, cols, key), await checksum(dst, table, cols, key)];
    out.push({
      table,
      source_rows: a.rows,
      target_rows: b.rows,
      source_checksum: a.md5,
      target_checksum: b.md5,
      equal: a.rows === b.rows && a.md5 === b.md5,
    });
  }
  progress("verifying vectors …");
  const cols = ["chunk_id", "embedding"];
  const [a, b] = [await checksum(sqliteVectors(db).read, "", cols, []), await checksum(pgVectors(sql), "", cols, [])];
  out.push({
    table: "vectors",
    source_rows: a.rows,
    target_rows: b.rows,
    source_checksum: a.md5,
    target_checksum: b.md5,
    equal: a.rows === b.rows && a.md5 === b.md5,
  });
  return out;
}

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
    return e ? new Float32Array(e.buffer.slice(e.byteOffset, e.byteOffset + e.byteLength)) : undefined;
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
  if (!existsSync(join(from, "docchat.db"))) throw new CopyRefused(`${from} holds no docchat database (docchat.db)`);
  const holder = serverHoldingDataDir(from);
  if (holder !== null) {
    throw new CopyRefused(
      `a docchat server (pid ${holder}) is using ${from}; stop it first, so nothing it writes after the copy is left behind`,
    );
  }
  const db = await openDatabase(from);
  const sql = new SQL(url, { ...pgConnectOptions(url), max: 2 });
  try {
    // one read transaction: every table from the same moment, whatever CLI commands write meanwhile
    db.run("BEGIN");
    try {
      await sql`SELECT 1`.catch((e: unknown) => {
        throw new Error(`cannot connect to PostgreSQL at ${to}: ${(e as Error).message}`);
      });
      progress(`migrating ${to} …`);
      await migratePg(sql);
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
          throw new Error(
            `PostgreSQL table ${table} lacks column(s) ${missing.join(", ")}: is this docchat binary older than the data dir?`,
          );
        columns.set(table, src);
      }
      const counts = await Promise.all(
        COPY_TABLES.map(async ({ table }) => Number(((await sql`SELECT count(*) AS n FROM ${sql(table)}`) as Row[])[0]?.n ?? 0)),
      );
      const vectors = sqliteVectors(db);
      let action: CopyReport["action"] = "copied";
      let tables: TableReport[] | null = null;
      if (counts.some((n) => n > 0)) {
        progress(`${to} is not empty: comparing it with ${from} …`);
        tables = await compare(db, sql, columns, bytea, progress);
        const differ = tables.filter((t) => !t.equal);
        if (differ.length > 0) {
          throw new CopyRefused(
            `${to} is not empty and does not hold a copy of ${from} (differs in ${differ.map((t) => `${t.table}: ${t.target_rows} rows there, ${t.source_rows} here`).join("; ")}). ` +
              "db copy never merges into existing data: copy into a new, empty database.",
          );
        }
        action = "unchanged";
      } else {
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
          await index.createVectorTable(vectors.dimension, tx, { deferHnsw: true });
          for (const { table, key } of COPY_TABLES) {
            const cols = columns.get(table) as string[];
            progress(`copying ${table} …`);
            if (table === "chunks") {
              await copyChunks(db, tx, index, cols, vectors.dimension !== null, opts.analyze);
              if (vectors.dimension !== null) {
                progress("building the vector index …");
                await index.buildVectorIndex(tx);
              }
              continue;
            }
            await sqlitePages(db, bytea)(table, cols, key, async (rows) => {
              refuseUnstorable(table, key, rows);
              await tx`INSERT INTO ${tx(table)} ${tx(rows, ...cols)}`.catch((e: unknown) => {
                throw new Error(
                  `copying ${table} (${rowName(key, rows[0] as Row)} to ${rowName(key, rows.at(-1) as Row)}): ${(e as Error).message}`,
                );
              });
            });
          }
          for (const table of IDENTITY_TABLES) {
            await tx`SELECT setval(pg_get_serial_sequence(${table}, 'id'), coalesce((SELECT max(id) FROM ${tx(table)}), 1), (SELECT count(*) > 0 FROM ${tx(table)}))`;
          }
        });
      }
      // after a copy, read both sides back (a re-run already compared them and wrote nothing)
      tables ??= await compare(db, sql, columns, bytea, progress);
      const indexed = Number(((await sql`SELECT count(*) AS n FROM chunks WHERE kw_length IS NOT NULL`) as Row[])[0]?.n ?? 0);
      const published =
        db.query<{ n: number }, []>("SELECT count(*) AS n FROM chunks WHERE deployment_id NOT LIKE '~staging:%'").get()?.n ?? 0;
      const ok = tables.every((t) => t.equal) && indexed === published;
      return {
        from,
        to,
        action,
        ok,
        tables,
        keyword_indexed_chunks: indexed,
        keyword_expected_chunks: published,
        vector_dimension: vectors.dimension,
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
