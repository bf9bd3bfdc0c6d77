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
