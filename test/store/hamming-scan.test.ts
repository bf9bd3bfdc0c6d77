/**
 * The WebAssembly Hamming scan (hamming-scan.ts) against a plain JavaScript count of the same bits: the codes a
 * search keeps are the nearest by the whole code, dropped slots are never returned, and codes survive growth and
 * replacement.
 */
import { expect, test } from "bun:test";
import { createCodeSet } from "../../src/store/shared/hamming-scan.ts";

let seed = 7;
const byte = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed >>> 24;
};
const randomCode = (bytes: number) => Uint8Array.from({ length: bytes }, byte);
const bits = (x: number) => {
  let n = 0;
  for (; x; x &= x - 1) n++;
  return n;
};
const hamming = (a: Uint8Array, b: Uint8Array) => a.reduce((sum, x, i) => sum + bits(x ^ (b[i] as number)), 0);
/** a code `flips` bits away from `code` */
const near = (code: Uint8Array, flips: number) => {
  const out = code.slice();
  for (let i = 0; i < flips; i++) out[(i * 37) % out.length] = (out[(i * 37) % out.length] as number) ^ (1 << (i % 8));
  return out;
};

for (const codeBits of [512, 2048]) {
  test(`${codeBits}-bit codes: the nearest by the whole code, across growth, replacement and dropped slots`, () => {
    const bytes = codeBits / 8;
    const set = createCodeSet(codeBits, 16); // grows several times below
    const codes = Array.from({ length: 3000 }, () => randomCode(bytes));
    for (const [i, c] of codes.entries()) expect(set.add(c)).toBe(i);
    const query = randomCode(bytes);
    // a few codes near the query, one of them by replacement after the fact
    codes[10] = near(query, 3);
    set.replace(10, codes[10]);
    codes[2999] = near(query, 5);
    set.replace(2999, codes[2999]);
    const dist = codes.map((c) => hamming(c, query));
    const sorted = [...dist].sort((a, b) => a - b);

    // widened to every code: exactly the 50 smallest distances
    const all = set.nearest(query, 50, 1000);
    expect(all.map((s) => dist[s] as number).sort((a, b) => a - b)).toEqual(sorted.slice(0, 50));
    expect(all.slice(0, 2).sort((a, b) => a - b)).toEqual([10, 2999]);
    // the product's widening keeps the nearest two first
    expect(set.nearest(query, 10).slice(0, 2).sort((a, b) => a - b)).toEqual([10, 2999]);
    // a dropped slot is never returned, however near; replaced, it is searched again
    set.drop(10);
    const live = set.nearest(query, 50, 1000);
    expect(live).not.toContain(10);
    expect(live).toContain(2999);
    expect(live).toHaveLength(50);
    set.replace(10, codes[10] as Uint8Array);
    expect(set.nearest(query, 1, 1000)).toEqual([10]);
    // fewer live codes than asked for: all of them
    for (let slot = 20; slot < 3000; slot++) set.drop(slot);
    expect(set.nearest(query, 50, 1000).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });
}

test("codes whose length is not a multiple of 64 bits, or shorter than the 512-bit prefix, are refused", () => {
  expect(() => createCodeSet(100)).toThrow();
  expect(() => createCodeSet(256)).toThrow();
});
