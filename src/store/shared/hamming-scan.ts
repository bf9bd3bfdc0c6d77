/**
 * Hamming distances from one binary code to many, in WebAssembly: `i64.popcnt` is one machine instruction where
 * JavaScript has none, and sqlite-vec 0.1.9's build counts bits in software (BENCHMARKS.md, "Retrieval latency
 * (one deployment)"). Two functions, assembled below (the module is small enough to write out):
 *
 *   prefix(codes, n, out):        out[i] = Σ_{w < PREFIX} popcnt(prefixes[i][w] xor query[w])   for i < n
 *   gather(codes, slots, m, out): out[j] = Σ_{w < words}  popcnt(codes[slots[j]][w] xor query[w]) for j < m
 *
 * A search reads the first 512 bits of every code (a quarter of the memory: the scan is bound by memory, not by
 * counting), keeps the nearest `widen`·m by that, and ranks those by the whole code. Each code set lives in its
 * own instance's memory (nothing copied per search): [query | prefixes | codes | distances | slots | distances].
 */

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const name = (s: string) => [...uleb(s.length), ...new TextEncoder().encode(s)];

// opcodes (WebAssembly core spec, binary format)
const [BLOCK, LOOP, BR, BR_IF, END, VOID] = [0x02, 0x03, 0x0c, 0x0d, 0x0b, 0x40];
const [GET, SET] = [0x20, 0x21];
const [I32, I64] = [0x7f, 0x7e];
const [I32_CONST, I32_ADD, I32_MUL, I32_SHL, I32_GE_U, I32_LOAD] = [0x41, 0x6a, 0x6c, 0x74, 0x4f, 0x28];
const [I64_LOAD, I64_STORE16, I64_XOR, I64_POPCNT, I64_ADD] = [0x29, 0x3d, 0x85, 0x7b, 0x7c];
/** A signed LEB128 (i32.const's immediate). */
const sleb = (v: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
};
const PREFIX_WORDS = 8;
const WORD_BYTES = 8;

/** Memory a code of `bits` bits takes in a code set: itself, its prefix, its two distances and its slot number. */
export const bytesPerCode = (bits: number): number => bits / 8 + PREFIX_WORDS * WORD_BYTES + 2 + 4 + 2;

/**
 * One scan function over codes of `words` 64-bit words, unrolled: the query's words held in locals, each code read
 * once. `gather` reads the codes at the slots listed (u32) instead of all of them in order.
 */
function scanBody(words: number, gather: boolean): number[] {
  // params: codes, n, out — or codes, slots, m, out; then locals i, p, the query's words
  const [codes, slots, n, out] = gather ? [0, 1, 2, 3] : [0, -1, 1, 2];
  const [i, p, q0] = gather ? [4, 5, 6] : [3, 4, 5];
  const xorWord = (k: number) => [GET, p, I64_LOAD, 3, ...uleb(k * 8), GET, ...uleb(q0 + k), I64_XOR, I64_POPCNT];
  // gather: p = codes + slots[i] · (bytes a code)
  const next = gather
    ? [...[GET, codes, GET, slots, GET, i, I32_CONST, 2, I32_SHL, I32_ADD, I32_LOAD, 2, 0], ...[I32_CONST, ...sleb(words * 8), I32_MUL, I32_ADD, SET, p]]
    : [];
  return [
    ...[2, 2, I32, ...uleb(words), I64], // locals: i, p; the query's words
    ...Array.from({ length: words }, (_, k) => [I32_CONST, 0, I64_LOAD, 3, ...uleb(k * 8), SET, ...uleb(q0 + k)]).flat(),
    ...(gather ? [] : [GET, codes, SET, p]),
    ...[BLOCK, VOID, LOOP, VOID],
    ...[GET, i, GET, n, I32_GE_U, BR_IF, 1],
    ...next,
    ...[GET, out, GET, i, I32_CONST, 1, I32_SHL, I32_ADD],
    ...xorWord(0),
    ...Array.from({ length: words - 1 }, (_, k) => [...xorWord(k + 1), I64_ADD]).flat(),
    ...[I64_STORE16, 1, 0],
    ...(gather ? [] : [GET, p, I32_CONST, ...sleb(words * 8), I32_ADD, SET, p]),
    ...[GET, i, I32_CONST, 1, I32_ADD, SET, i],
    ...[BR, 0, END, END],
    END,
  ];
}

function assemble(words: number): Uint8Array {
  const prefix = scanBody(PREFIX_WORDS, false);
  const gather = scanBody(words, true);
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [2, 0x60, 3, I32, I32, I32, 0, 0x60, 4, I32, I32, I32, I32, 0]), // (i32 × 3) → (), (i32 × 4) → ()
    ...section(3, [2, 0, 1]),
    ...section(5, [1, 0, 1]), // one memory, 1 page to start
    ...section(7, [3, ...name("memory"), 2, 0, ...name("prefix"), 0, 0, ...name("gather"), 0, 1]),
    ...section(10, [2, ...uleb(prefix.length), ...prefix, ...uleb(gather.length), ...gather]),
  ]);
}

const modules = new Map<number, WebAssembly.Module>();
const PAGE = 65536;

/**
 * A growable set of binary codes of `bits` bits (a multiple of 64, at least 512): `add` a code (returns its slot),
 * `replace` one, `nearest` slots to a query code.
 */
export function createCodeSet(bits: number, capacity = 1024) {
  if (bits % 64 !== 0 || bits < PREFIX_WORDS * 64) throw new Error("code bits must be a multiple of 64, at least 512");
  const codeBytes = bits / 8;
  const prefixBytes = PREFIX_WORDS * WORD_BYTES;
  const words = codeBytes / WORD_BYTES;
  const compiled = modules.get(words) ?? new WebAssembly.Module(assemble(words) as BufferSource);
  modules.set(words, compiled);
  let cap = 0;
  let size = 0;
  /** 1 for a dropped slot; none until a slot is dropped */
  let dropped: Uint8Array | null = null;
  let exports: {
    memory: WebAssembly.Memory;
    prefix: (c: number, n: number, o: number) => void;
    gather: (c: number, s: number, m: number, o: number) => void;
  };
  // regions, in bytes from 0: the query, then each a multiple of 8 long
  const at = (c: number) => {
    const prefixes = codeBytes;
    const codes = prefixes + c * prefixBytes;
    const dist = codes + c * codeBytes;
    const slots = dist + Math.ceil((c * 2) / 8) * 8;
    const dist2 = slots + c * 4;
    return { prefixes, codes, dist, slots, dist2, end: dist2 + c * 2 };
  };
  const allocate = (want: number) => {
    const next = new WebAssembly.Instance(compiled, {}).exports as typeof exports;
    const was = at(cap);
    const to = at(want);
    const pages = Math.ceil(to.end / PAGE) - next.memory.buffer.byteLength / PAGE;
    if (pages > 0) next.memory.grow(pages);
    if (size > 0) {
      const dst = new Uint8Array(next.memory.buffer);
      const src = new Uint8Array(exports.memory.buffer);
      dst.set(src.subarray(was.prefixes, was.prefixes + size * prefixBytes), to.prefixes);
      dst.set(src.subarray(was.codes, was.codes + size * codeBytes), to.codes);
    }
    exports = next;
    cap = want;
    if (dropped) {
      const grown = new Uint8Array(want);
      grown.set(dropped);
      dropped = grown;
    }
  };
  allocate(Math.max(1, capacity));
  const write = (slot: number, code: Uint8Array) => {
    const r = at(cap);
    const mem = new Uint8Array(exports.memory.buffer);
    mem.set(code.subarray(0, prefixBytes), r.prefixes + slot * prefixBytes);
    mem.set(code.subarray(0, codeBytes), r.codes + slot * codeBytes);
  };
  return {
    get size() {
      return size;
    },
    /** Bytes of memory held. */
    get bytes() {
      return exports.memory.buffer.byteLength;
    },
    add(code: Uint8Array): number {
      if (size === cap) allocate(cap * 2);
      write(size, code);
      return size++;
    },
    /** A slot's code replaced (and searched again, if it was dropped). */
    replace(slot: number, code: Uint8Array): void {
      write(slot, code);
      if (dropped) dropped[slot] = 0;
    },
    /** A slot no search returns any more (its code stays until the set is rebuilt). */
    drop(slot: number): void {
      dropped ??= new Uint8Array(cap);
      dropped[slot] = 1;
    },
    /**
     * The slots of the `m` codes nearest `code` by Hamming distance, dropped slots aside, nearest first: the nearest
     * `widen`·m by the first 512 bits, ranked by the whole code.
     */
    nearest(code: Uint8Array, m: number, widen = 16): number[] {
      const r = at(cap);
      new Uint8Array(exports.memory.buffer).set(code.subarray(0, codeBytes), 0);
      exports.prefix(r.prefixes, size, r.dist);
      const first = smallest(new Uint16Array(exports.memory.buffer, r.dist, size), Math.min(size, m * widen), prefixBytes * 8, dropped);
      new Uint32Array(exports.memory.buffer, r.slots, first.length).set(first);
      exports.gather(r.codes, r.slots, first.length, r.dist2);
      const d2 = new Uint16Array(exports.memory.buffer, r.dist2, first.length);
      return smallest(d2, m, bits, null)
        .sort((a, b) => (d2[a] as number) - (d2[b] as number) || a - b)
        .map((j) => first[j] as number);
    },
  };
}

/**
 * The indices of the `m` smallest distances (each at most `bound`), those marked in `skip` aside: one counting
 * pass finds the distance the m-th lies at, a second collects them.
 */
function smallest(dist: Uint16Array, m: number, bound: number, skip: Uint8Array | null): number[] {
  const counts = new Uint32Array(bound + 1);
  if (skip)
    for (let i = 0; i < dist.length; i++) {
      const d = dist[i] as number;
      if (skip[i] === 0) counts[d] = (counts[d] as number) + 1;
    }
  else
    for (let i = 0; i < dist.length; i++) {
      const d = dist[i] as number;
      counts[d] = (counts[d] as number) + 1;
    }
  // the distance the m-th lies at, and how many lie below it
  let cut = 0;
  let below = 0;
  while (cut < bound && below + (counts[cut] as number) < m) below += counts[cut++] as number;
  const out: number[] = [];
  let atCut = m - below;
  for (let i = 0; i < dist.length; i++) {
    const d = dist[i] as number;
    if (d > cut || (skip !== null && skip[i] !== 0)) continue;
    if (d < cut) out.push(i);
    else if (atCut > 0) {
      out.push(i);
      atCut--;
    }
  }
  return out;
}

export type CodeSet = ReturnType<typeof createCodeSet>;
