/**
 * Cells as the two drivers hand them over, so one row→record mapper per entity serves both: bun:sqlite gives
 * integers as numbers and flags as 0/1; Bun.sql gives int8 columns and aggregates as strings (exact beyond 2^53),
 * int4 as numbers, and flags stored as smallint 0/1.
 */
export type IntCell = number | string;
export type FlagCell = number | string | boolean;

export const num = (v: IntCell): number => Number(v);
export const numOrNull = (v: IntCell | null | undefined): number | null => (v === null || v === undefined ? null : Number(v));
/** 0/1 flag columns read as booleans, whether the column is an integer or a boolean. */
export const flag = (v: FlagCell): boolean => v === true || v === 1 || v === "1";
export const rating = (v: IntCell | null | undefined): 0 | 1 | null => (v === null || v === undefined ? null : Number(v) === 1 ? 1 : 0);
/** A list or object column stored as JSON text. */
export const jsonOf = <T>(text: string): T => JSON.parse(text) as T;
