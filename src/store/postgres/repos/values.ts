/** A row as Bun.sql gives it: bigint columns and aggregates arrive as strings. */
export type Raw = Record<string, unknown>;

export const num = (v: unknown): number => Number(v);
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
/** 0/1 flag columns read as booleans, whether the column is an integer or a boolean. */
export const flag = (v: unknown): boolean => v === true || v === 1 || v === "1";
export const rating = (v: unknown): 0 | 1 | null => (v === null || v === undefined ? null : (Number(v) as 0 | 1));

/** SQLite's LIMIT: a negative limit means no limit, which PostgreSQL spells NULL. */
export const limitOf = (n: number): number | null => (n < 0 ? null : n);

export const first = async (q: Promise<unknown>): Promise<Raw | null> => ((await q) as Raw[])[0] ?? null;

/**
 * PostgreSQL's text can't hold U+0000, which SQLite's TEXT keeps: a NUL in a visitor's question or an email typed at
 * sign-in would fail the statement (a 500 where SQLite answers). Free text is stored with each NUL as U+FFFD, the
 * replacement character; lookups map their argument the same way, so they find what was stored.
 */
export const text = <T extends string | null>(s: T): T => (s === null || !s.includes("\0") ? s : (s.replaceAll("\0", "\uFFFD") as T));
