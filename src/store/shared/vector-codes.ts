/**
 * Binary codes of embedding vectors for sqlite-vec's `bit[]` columns: the sign bits of the vector after fixed
 * random rotations (SimHash), so the Hamming distance between two codes estimates the angle between the vectors.
 * Plain sign bits (vec_quantize_binary) keep 6 % of the exact top 10 among 400 candidates on sparse embeddings
 * (hashed bag-of-words: most coordinates are 0, and 0 and −0.4 get the same bit); rotated first, 2,048 bits keep
 * 96 % among 100, and the product's search 97.8 % (BENCHMARKS.md, "Retrieval latency (one deployment)").
 *
 * Each rotation is two rounds of random sign flips and a Walsh–Hadamard transform over the vector zero-padded
 * to a power of two: O(n log n), no matrix stored. The seeds are fixed; codes written by one version are read
 * by the next, and CODE_SCHEME names the recipe so a change rebuilds them (vector-search.sqlite.ts).
 */

export const CODE_BITS = 2048;
/** The recipe of the stored codes, their table's layout included (vector-search.sqlite.ts: 16 shards, the vector beside). */
export const CODE_SCHEME = `simhash-hadamard-2x:${CODE_BITS}/16+vector`;
const ROUNDS = 2;
const SEED = 0x5eed_c0de;

function nextPow2(n: number): number {
  let p = 64;
  while (p < n) p <<= 1;
  return p;
}

/** A deterministic ±1 sequence (xorshift32): the same signs on every machine and version. */
function signs(seed: number, n: number): Int8Array {
  let s = seed >>> 0 || 1;
  const out = new Int8Array(n);
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = s & 1 ? 1 : -1;
  }
  return out;
}

/** In-place unnormalised Walsh–Hadamard transform (length a power of two). */
function fwht(a: Float64Array): void {
  for (let h = 1; h < a.length; h <<= 1)
    for (let i = 0; i < a.length; i += h << 1)
      for (let j = i; j < i + h; j++) {
        const x = a[j] as number;
        const y = a[j + h] as number;
        a[j] = x + y;
        a[j + h] = x - y;
      }
}

export interface VectorCoder {
  bytes: number;
  /** The vector's code, CODE_BITS bits packed little-endian per byte (sqlite-vec's bit[] layout). */
  encode(v: Float32Array): Uint8Array;
}

const coders = new Map<number, VectorCoder>();

/** The coder for vectors of `dimension` (built once: the sign tables). */
export function vectorCoder(dimension: number): VectorCoder {
  const found = coders.get(dimension);
  if (found) return found;
  const width = nextPow2(dimension);
  const rotations = Math.ceil(CODE_BITS / width);
  const tables = Array.from({ length: rotations }, (_, r) => Array.from({ length: ROUNDS }, (_, k) => signs(SEED + 977 * r + k, width)));
  const buf = new Float64Array(width);
  const coder: VectorCoder = {
    bytes: CODE_BITS / 8,
    encode(v) {
      const out = new Uint8Array(CODE_BITS / 8);
      let bit = 0;
      for (const rounds of tables) {
        buf.fill(0);
        for (let i = 0; i < Math.min(v.length, width); i++) buf[i] = v[i] as number;
        for (const s of rounds) {
          for (let i = 0; i < width; i++) buf[i] = (buf[i] as number) * (s[i] as number);
          fwht(buf);
        }
        for (let i = 0; i < width && bit < CODE_BITS; i++, bit++) if ((buf[i] as number) > 0) out[bit >> 3] = (out[bit >> 3] as number) | (1 << (bit & 7));
      }
      return out;
    },
  };
  coders.set(dimension, coder);
  return coder;
}
