/**
 * Reads a GGUF file's metadata key/values (not its tensors) synchronously, stopping as soon as the wanted keys
 * were seen. Enough to tell a chat model from an embedding model or a reranker without loading node-llama-cpp,
 * which `docchat models` and the server's start-up decision should not need. Format: github.com/ggml-org/ggml
 * docs/gguf.md (v2 and v3: little-endian, u64 lengths and counts).
 */
import { closeSync, openSync, readSync } from "node:fs";

type Scalar = number | bigint | boolean | string;
export type GgufValue = Scalar | GgufValue[];

const T = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10, i64: 11, f64: 12 } as const;
/** The fixed-size value types: their width in bytes and how one is read (little-endian). */
const FIXED: Record<number, [bytes: number, read: (b: Buffer) => Scalar]> = {
  [T.u8]: [1, (b) => b.readUInt8(0)],
  [T.i8]: [1, (b) => b.readInt8(0)],
  [T.u16]: [2, (b) => b.readUInt16LE(0)],
  [T.i16]: [2, (b) => b.readInt16LE(0)],
  [T.u32]: [4, (b) => b.readUInt32LE(0)],
  [T.i32]: [4, (b) => b.readInt32LE(0)],
  [T.f32]: [4, (b) => b.readFloatLE(0)],
  [T.bool]: [1, (b) => b.readUInt8(0) !== 0],
  [T.u64]: [8, (b) => b.readBigUInt64LE(0)],
  [T.i64]: [8, (b) => b.readBigInt64LE(0)],
  [T.f64]: [8, (b) => b.readDoubleLE(0)],
};

class Cursor {
  private buf = Buffer.alloc(0);
  private pos = 0;
  private filePos = 0;
  constructor(private readonly fd: number) {}
  private need(n: number): void {
    if (this.buf.length - this.pos >= n) return;
    const rest = this.buf.subarray(this.pos);
    const chunk = Buffer.alloc(Math.max(n - rest.length, 1 << 16));
    const read = readSync(this.fd, chunk, 0, chunk.length, this.filePos);
    this.filePos += read;
    this.buf = Buffer.concat([rest, chunk.subarray(0, read)]);
    this.pos = 0;
    if (this.buf.length < n) throw new Error("the file ends inside its GGUF header");
  }
  bytes(n: number): Buffer {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  u32 = () => this.bytes(4).readUInt32LE(0);
  u64 = () => this.bytes(8).readBigUInt64LE(0);
  count(): number {
    const n = this.u64();
    if (n > 100_000_000n) throw new Error("implausible GGUF length field");
    return Number(n);
  }
  string = () => this.bytes(this.count()).toString("utf8");
}

function readValue(c: Cursor, type: number, keep: boolean): GgufValue {
  if (type === T.string) return c.string();
  if (type === T.array) {
    const itemType = c.u32();
    const n = c.count();
    const size = FIXED[itemType]?.[0];
    // Arrays are the tokenizer's vocabulary: skipped in bulk unless asked for.
    if (!keep && size !== undefined) {
      c.bytes(size * n);
      return [];
    }
    const out: GgufValue[] = [];
    for (let i = 0; i < n; i++) {
      const v = readValue(c, itemType, keep);
      if (keep) out.push(v);
    }
    return out;
  }
  const fixed = FIXED[type];
  if (!fixed) throw new Error(`unknown GGUF value type ${type}`);
  return fixed[1](c.bytes(fixed[0]));
}

/** Metadata of a GGUF file as a flat key → value map (arrays skipped); throws when it is not a GGUF file. */
export function readGgufMetadata(path: string): Map<string, GgufValue> {
  const fd = openSync(path, "r");
  try {
    const c = new Cursor(fd);
    if (c.bytes(4).toString("latin1") !== "GGUF") throw new Error(`${path} is not a GGUF file`);
    const version = c.u32();
    if (version < 2) throw new Error(`${path}: GGUF version ${version} is too old`);
    c.u64(); // tensor count
    const n = c.count();
    const out = new Map<string, GgufValue>();
    for (let i = 0; i < n; i++) {
      const key = c.string();
      out.set(key, readValue(c, c.u32(), false));
    }
    return out;
  } finally {
    closeSync(fd);
  }
}
