/** A row as Bun.sql gives it, before a contract mapper reads it: int8 columns and aggregates arrive as strings. */
export type Raw = Record<string, unknown>;

/** The rows of a query, typed as the contract row the caller reads them as (Bun.sql returns them untyped). */
export const rows = async <R = Raw>(q: Promise<unknown>): Promise<R[]> => (await q) as R[];
export const first = async <R = Raw>(q: Promise<unknown>): Promise<R | null> => (await rows<R>(q))[0] ?? null;

/** SQLite's LIMIT: a negative limit means no limit, which PostgreSQL spells NULL. */
export const limitOf = (n: number): number | null => (n < 0 ? null : n);

/**
 * PostgreSQL's text can't hold U+0000, which SQLite's TEXT keeps: a NUL in a visitor's question or an email typed at
 * sign-in would fail the statement (a 500 where SQLite answers). Free text is stored with each NUL as U+FFFD, the
 * replacement character; lookups map their argument the same way, so they find what was stored.
 */
export const text = <T extends string | null>(s: T): T => (s === null || !s.includes("\0") ? s : (s.replaceAll("\0", "\uFFFD") as T));
