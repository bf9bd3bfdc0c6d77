import { bytesPerCode, type CodeSet, createCodeSet } from "./hamming-scan.ts";
import { CODE_BITS, vectorCoder } from "./vector-codes.ts";

/**
 * One deployment's binary codes held in memory, by chunk id, and the budget they share with other deployments'. Both
 * engines hold them the same way; what differs is how a copy is read and kept up to date (SQLite:
 * sqlite/vector-code-cache.ts, from sqlite-vec's storage and every write of this process; PostgreSQL:
 * postgres/vector-codes.pg.ts, from the chunk_codes table and a log of changes any node may have made).
 */

/** Bytes of codes held in memory across deployments (about 400 bytes a chunk: HELD_CODE_MEMORY); DOCCHAT_VECTOR_CACHE_MB. */
export const CACHE_BYTES = 256 * 1024 * 1024;
/**
 * Codes ranked by their whole length per candidate wanted, after the first 512 bits of all: on 100,000 hashed
 * bag-of-words vectors, 150 candidates kept recall@10 0.973 at 16, 0.976 at 24, 0.980 at 32 (0.984 ranking every
 * code by its whole length) for 4.7, 5.1 and 5.3 ms of CPU a search, rescoring included. The whole codes are read
 * where they lie (a cache miss each), the prefixes in one stream: at 32, reading them takes longer than the scan.
 */
const WIDEN = 32;
/** Code candidates ranked by their exact distance per result wanted (recall@10 0.96 at 2 and 0.99 at 4 on 100k hashed bag-of-words vectors). */
export const OVERSAMPLE = 3;
/** Candidates ranked by exact distance however few results are wanted. */
const MIN_CANDIDATES = 64;
/** How many of the nearest codes a search for `k` results ranks by exact distance. */
export const candidatesFor = (k: number): number => Math.max(k * OVERSAMPLE, MIN_CANDIDATES);
/** A held code's chunk id and its entry in `slotOf`, in JavaScript's memory (about). */
const ROWID_BYTES = 56;
/** A held code's memory, all told: 384 bytes for 2,048 bits (100,000 chunks: about 37 MiB). */
export const HELD_CODE_MEMORY = bytesPerCode(CODE_BITS) + ROWID_BYTES;
const CODE_BYTES = CODE_BITS / 8;

export interface HeldCodes {
  set: CodeSet;
  /** chunk id of each slot */
  ids: number[];
  slotOf: Map<number, number>;
  /** slots dropped since the set was read */
  dead: number;
  usedAt: number;
}

/** A deployment's codes, `codes` the CODE_BITS-bit code of `ids[i]` at `i`. */
export function holdCodes(ids: number[], codes: (i: number) => Uint8Array): HeldCodes {
  const set = createCodeSet(CODE_BITS, Math.max(1024, ids.length));
  const slotOf = new Map<number, number>();
  for (const [i, id] of ids.entries()) slotOf.set(id, set.add(codes(i)));
  return { set, ids: [...ids], slotOf, dead: 0, usedAt: performance.now() };
}

/** Codes of chunks one after another in one buffer (as PostgreSQL and sqlite-vec's storage hand them over). */
export const codeAt = (packed: Uint8Array, i: number): Uint8Array => packed.subarray(i * CODE_BYTES, (i + 1) * CODE_BYTES);

/** A chunk's code added, or replaced where it is held already. */
export function putCode(h: HeldCodes, id: number, code: Uint8Array): void {
  const slot = h.slotOf.get(id);
  if (slot !== undefined) h.set.replace(slot, code);
  else {
    h.slotOf.set(id, h.set.add(code));
    h.ids.push(id);
  }
}

/** A chunk no search returns any more. */
export function dropCode(h: HeldCodes, id: number): void {
  const slot = h.slotOf.get(id);
  if (slot === undefined) return;
  h.slotOf.delete(id);
  h.set.drop(slot);
  h.dead++;
}

/** Chunks held and searched (dropped ones aside). */
export const liveCodes = (h: HeldCodes): number => h.slotOf.size;

/** A held set mostly of dropped slots is better read afresh (compacted). */
export const mostlyDropped = (h: HeldCodes): boolean => h.dead > 1024 && h.dead * 2 > h.ids.length;

const heldBytes = (h: HeldCodes): number => h.set.bytes + h.ids.length * ROWID_BYTES;

/** The chunk ids of the `m` codes nearest the query vector's code (Hamming), nearest first. */
export function nearestCodes(h: HeldCodes, query: Float32Array, m: number): number[] {
  h.usedAt = performance.now();
  const ids = h.ids;
  return h.set.nearest(vectorCoder(query.length).encode(query), m, WIDEN).map((slot) => ids[slot] as number);
}

/**
 * Room for `bytes` more within `budget` among the entries of `held` (each holding the codes `codesOf` gives): the
 * least recently searched are let go first. False (nothing let go) when `bytes` alone is over the budget.
 */
export function makeRoom<T>(held: Map<string, T>, codesOf: (t: T) => HeldCodes, bytes: number, budget: number): boolean {
  if (bytes > budget) return false;
  let total = 0;
  for (const t of held.values()) total += heldBytes(codesOf(t));
  const byAge = [...held.entries()].sort((a, b) => codesOf(a[1]).usedAt - codesOf(b[1]).usedAt);
  for (const [d, t] of byAge) {
    if (total + bytes <= budget) break;
    held.delete(d);
    total -= heldBytes(codesOf(t));
  }
  return true;
}
