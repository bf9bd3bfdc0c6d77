import type { SQL } from "bun";

/** A row as Bun.sql gives it: bigint columns and aggregates arrive as strings. */
export type Raw = Record<string, unknown>;

export const num = (v: unknown): number => Number(v);
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
/** 0/1 flag columns read as booleans, whether the column is an integer or a boolean. */
export const flag = (v: unknown): boolean => v === true || v === 1 || v === "1";
export const rating = (v: unknown): 0 | 1 | null => (v === null || v === undefined ? null : (Number(v) as 0 | 1));

/** SQLite's LIMIT: a negative limit means no limit, which PostgreSQL spells NULL. */
export const limitOf = (n: number): number | null => (n < 0 ? null : n);

/** Runs `f` in the caller's transaction when there is one, else in a new one. */
export const within = <T>(sql: SQL, tx: SQL | undefined, f: (tx: SQL) => Promise<T>): Promise<T> =>
  tx ? f(tx) : (sql.begin(f) as Promise<T>);

export const first = async (q: Promise<unknown>): Promise<Raw | null> => ((await q) as Raw[])[0] ?? null;
