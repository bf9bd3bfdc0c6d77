// Bun.SQL is read where a connection is made: importing it evaluates Bun's SQL module on every start (~5 ms before /health).
import { pgMigrations } from "./migrations/index.ts";
import { pgConnectOptions } from "./pg-url.ts";

/** The oldest PostgreSQL and pgvector docchat runs on (issue 12). */
export const MIN_SERVER_VERSION_NUM = 150000;
export const MIN_VECTOR_VERSION = "0.8";

export interface PgDiagnostics {
  reachable: boolean;
  error?: string;
  server_version?: string;
  server_version_num?: number;
  /** installed: the extension's version in this database; available: what the server could install */
  vector?: { installed: string | null; available: string | null };
  schema?: {
    applied: number[];
    known: number[];
    /** empty: never migrated; behind: this binary has migrations the database lacks; ahead: the database has ones this binary does not know */
    state: "empty" | "behind" | "current" | "ahead";
    pending: number[];
    unknown: number[];
  };
}

/** "0.8.6" ≥ "0.8"? Numeric, part by part. */
export function versionAtLeast(version: string, min: string): boolean {
  const a = version.split(".").map((x) => Number.parseInt(x, 10) || 0);
  const b = min.split(".").map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

/** Scrubs a URL's password from text that may quote it (driver errors). */
export function scrubPassword(text: string, url: string): string {
  let pw = "";
  try {
    pw = new URL(url).password;
  } catch {
    return text;
  }
  if (!pw) return text;
  return text.split(pw).join("***").split(decodeURIComponent(pw)).join("***");
}

/**
 * What doctor reports about the PostgreSQL server at `url`: reachable, its version, the `vector` extension, and
 * the schema's migrations against this binary's list. Reads only; never migrates. Errors become `error`.
 */
export async function pgDiagnostics(url: string, timeoutMs = 5000): Promise<PgDiagnostics> {
  const sql = new Bun.SQL(url, { ...pgConnectOptions(url), max: 1, connectionTimeout: Math.ceil(timeoutMs / 1000) });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([
      (async (): Promise<PgDiagnostics> => {
        const [v] = (await sql`SELECT current_setting('server_version') AS v, current_setting('server_version_num')::int AS n`) as {
          v: string;
          n: number;
        }[];
        const [ext] = (await sql`SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS installed,
          (SELECT default_version FROM pg_available_extensions WHERE name = 'vector') AS available`) as {
          installed: string | null;
          available: string | null;
        }[];
        const [reg] = (await sql`SELECT to_regclass('schema_migrations') IS NOT NULL AS ok`) as { ok: boolean }[];
        const applied = reg?.ok
          ? ((await sql`SELECT version FROM schema_migrations ORDER BY version`) as { version: number }[]).map((r) => Number(r.version))
          : [];
        const known = pgMigrations.map((m) => m.version);
        const pending = known.filter((k) => !applied.includes(k));
        const unknown = applied.filter((a) => !known.includes(a));
        const state = applied.length === 0 ? "empty" : unknown.length > 0 ? "ahead" : pending.length > 0 ? "behind" : "current";
        return {
          reachable: true,
          server_version: v?.v,
          server_version_num: v?.n,
          vector: { installed: ext?.installed ?? null, available: ext?.available ?? null },
          schema: { applied, known, state, pending, unknown },
        };
      })(),
      deadline,
    ]);
  } catch (e) {
    return { reachable: false, error: scrubPassword(e instanceof Error ? e.message : String(e), url) };
  } finally {
    clearTimeout(timer);
    sql.close().catch(() => {});
  }
}

/** The keyword index as `docchat doctor` reports it (the SQLite twin is store/diagnostics.ts keywordIndexInfo). */
export async function pgKeywordIndexInfo(
  url: string,
  analyzer: string,
): Promise<{
  pending_deployments: number;
  pending_chunks: number;
  languages: { lang: string; documents: number; chunks: number }[];
} | null> {
  const sql = new Bun.SQL(url, { max: 1 });
  try {
    const has =
      (await sql`SELECT 1 FROM information_schema.columns WHERE table_name = 'kw_stats' AND column_name = 'analyzer'`) as unknown[];
    if (has.length === 0) return null;
    const [p] =
      (await sql`SELECT count(*)::int AS deployments, coalesce(sum((SELECT count(*) FROM chunks c WHERE c.deployment_id = d.id)), 0)::int AS chunks
      FROM deployments d LEFT JOIN kw_stats s ON s.deployment_id = d.id
      WHERE (s.deployment_id IS NULL AND EXISTS (SELECT 1 FROM chunks c WHERE c.deployment_id = d.id)) OR s.analyzer <> ${analyzer} OR s.stale = 1`) as {
        deployments: number;
        chunks: number;
      }[];
    const languages =
      (await sql`SELECT coalesce(lang, '?') AS lang, count(*)::int AS documents, sum(chunk_count)::int AS chunks FROM documents
      WHERE status = 'completed' GROUP BY lang ORDER BY chunks DESC`) as { lang: string; documents: number; chunks: number }[];
    return { pending_deployments: p?.deployments ?? 0, pending_chunks: p?.chunks ?? 0, languages: languages.map((l) => ({ ...l })) };
  } finally {
    await sql.close();
  }
}
