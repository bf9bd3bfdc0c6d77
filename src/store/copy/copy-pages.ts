/**
 * Both sides of `docchat db copy` read the same way: each table page by page in key order (SQLite's BINARY order
 * on both), every value as canonical text, and a table's checksum over its rows — so the copy can be verified
 * table by table, and a re-run can tell a target that already holds exactly this data.
 */
import type { Database } from "bun:sqlite";
import type { SQL } from "bun";

export const VEC_TABLE = "chunks_vec";
export const PAGE_ROWS = 1000;
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

export type Row = Record<string, unknown>;

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
export function sqlitePages(db: Database, bytea: Map<string, string[]>): PageReader {
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

export function pgPages(sql: SQL): PageReader {
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
export function sqliteVectors(db: Database): { dimension: number | null; read: PageReader } {
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

export function pgVectors(sql: SQL): PageReader {
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

export function sqliteColumns(db: Database, table: string): string[] {
  return db
    .query<{ name: string }, []>(`PRAGMA table_info(${table})`)
    .all()
    .map((r) => r.name);
}

export async function pgColumns(sql: SQL, table: string): Promise<{ name: string; type: string }[]> {
  return (
    (await sql`SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position`) as Row[]
  ).map((r) => ({ name: r.column_name as string, type: r.data_type as string }));
}

export async function compare(
  tables: { table: string; key: string[] }[],
  db: Database,
  sql: SQL,
  columns: Map<string, string[]>,
  bytea: Map<string, string[]>,
  progress: (line: string) => void,
): Promise<TableReport[]> {
  const out: TableReport[] = [];
  const [src, dst] = [sqlitePages(db, bytea), pgPages(sql)];
  for (const { table, key } of tables) {
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
