import { userInfo } from "node:os";

/**
 * Connection settings from DOCCHAT_DATABASE_URL alone. Bun.sql lets libpq's environment variables (PGDATABASE,
 * PGHOST, PGSSLMODE, …) win over a URL: with PGDATABASE=postgres, as pg_virtualenv and many shells and images set
 * it, a URL naming database docchat connected to database postgres, and two nodes with different environments would
 * each use their own. Every setting is therefore passed explicitly (options win over the environment), with libpq's
 * defaults where the URL is silent: port 5432, the OS user, a database named after the user, no TLS unless the URL
 * asks with sslmode. Only a password the URL leaves out may still come from PGPASSWORD.
 */
export function pgConnectOptions(url: string): {
  hostname: string;
  port: number;
  username: string;
  database: string;
  tls: boolean;
  password?: string;
} {
  const u = new URL(url);
  const username = decodeURIComponent(u.username) || userInfo().username;
  const sslmode = u.searchParams.get("sslmode") ?? "disable";
  return {
    hostname: u.hostname.replace(/^\[|\]$/g, "") || u.searchParams.get("host") || "localhost",
    port: Number(u.port || u.searchParams.get("port") || 5432),
    username,
    database: decodeURIComponent(u.pathname.replace(/^\//, "")) || username,
    tls: ["require", "verify-ca", "verify-full"].includes(sslmode),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
  };
}

/** A connection URL without its password (user, host, port, database and parameters kept): safe to print. */
export function pgUrlWithoutPassword(url: string): string {
  const u = new URL(url);
  u.password = "";
  return u.toString();
}

/** Shell-quotes one argument for a printed command line. */
const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * How PostgreSQL is backed up and restored: pg_dump / pg_restore with the connection details (never the password:
 * it comes from PGPASSWORD or ~/.pgpass). `file` is where the dump goes.
 */
export function pgDumpAdvice(url: string, file: string): string {
  const target = pgUrlWithoutPassword(url);
  return [
    "docchat keeps its state in PostgreSQL (DOCCHAT_DATABASE_URL): back it up with PostgreSQL's own tools.",
    "  Dump (a consistent snapshot, safe while nodes run; password from PGPASSWORD or ~/.pgpass):",
    `    pg_dump --format=custom --file=${quote(file)} --dbname=${quote(target)}`,
    "  Restore into an empty database (with the vector extension available), nodes stopped:",
    `    pg_restore --exit-on-error --no-owner --dbname=${quote(target)} ${quote(file)}`,
    "  For point-in-time recovery, archive the WAL (archive_command, or pgBackRest / Barman). See docs/scale-out.md.",
  ].join("\n");
}
