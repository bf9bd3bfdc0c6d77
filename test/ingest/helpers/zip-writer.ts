import { deflateRawSync } from "node:zlib";
import { concatBytes } from "../../helpers/bytes.ts";

export interface ZipFile {
  name: string;
  data: Uint8Array | string;
  /** store instead of deflate */
  stored?: boolean;
  /** lie in the headers about the inflated size (zip-bomb fixtures) */
  declaredSize?: number;
}

/** Writes a plain ZIP (no zip64, no data descriptors) with fixed timestamps, so output is reproducible. */
export function writeZip(files: ZipFile[]): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const file of files) {
    const name = new TextEncoder().encode(file.name);
    const raw = typeof file.data === "string" ? new TextEncoder().encode(file.data) : file.data;
    const body = file.stored ? raw : new Uint8Array(deflateRawSync(raw, { level: 9 }));
    const fields = {
      method: file.stored ? 0 : 8,
      crc: Bun.hash.crc32(raw),
      compressed: body.byteLength,
      size: file.declaredSize ?? raw.byteLength,
    };
    locals.push(localHeader(name, fields), body);
    centrals.push(centralHeader(name, fields, offset));
    offset += 30 + name.byteLength + body.byteLength;
  }
  const centralSize = centrals.reduce((n, c) => n + c.byteLength, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, files.length, true);
  end.setUint16(10, files.length, true);
  end.setUint32(12, centralSize, true);
  end.setUint32(16, offset, true);
  return concatBytes([...locals, ...centrals, new Uint8Array(end.buffer)]);
}

interface Fields {
  method: number;
  crc: number;
  compressed: number;
  size: number;
}

function localHeader(name: Uint8Array, f: Fields): Uint8Array {
  const v = new DataView(new ArrayBuffer(30));
  v.setUint32(0, 0x04034b50, true);
  v.setUint16(4, 20, true);
  v.setUint16(8, f.method, true);
  v.setUint16(12, 0x21, true); // 1980-01-01
  v.setUint32(14, f.crc, true);
  v.setUint32(18, f.compressed, true);
  v.setUint32(22, f.size, true);
  v.setUint16(26, name.byteLength, true);
  return concatBytes([new Uint8Array(v.buffer), name]);
}

function centralHeader(name: Uint8Array, f: Fields, offset: number): Uint8Array {
  const v = new DataView(new ArrayBuffer(46));
  v.setUint32(0, 0x02014b50, true);
  v.setUint16(4, 20, true);
  v.setUint16(6, 20, true);
  v.setUint16(10, f.method, true);
  v.setUint16(14, 0x21, true);
  v.setUint32(16, f.crc, true);
  v.setUint32(20, f.compressed, true);
  v.setUint32(24, f.size, true);
  v.setUint16(28, name.byteLength, true);
  v.setUint32(42, offset, true);
  return concatBytes([new Uint8Array(v.buffer), name]);
}
