/** Minimal read-only view of a ZIP's central directory; enough to sniff and to guard inflation. */
export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

export class ZipFormatError extends Error {}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_U32 = 0xffffffff;

export function isZipMagic(bytes: Uint8Array): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5) && (bytes[3] === 4 || bytes[3] === 6);
}

/** Reads the central directory; throws ZipFormatError when it is missing or inconsistent (truncated file). */
export function listZipEntries(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEocd(view);
  let count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  if ((count === 0xffff || offset === MAX_U32) && eocd >= 20 && view.getUint32(eocd - 20, true) === ZIP64_LOCATOR) {
    const z64 = Number(view.getBigUint64(eocd - 12, true));
    if (z64 + 56 > view.byteLength || view.getUint32(z64, true) !== ZIP64_EOCD) throw new ZipFormatError("bad zip64 record");
    count = Number(view.getBigUint64(z64 + 32, true));
    offset = Number(view.getBigUint64(z64 + 48, true));
  }
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (offset + 46 > view.byteLength || view.getUint32(offset, true) !== CENTRAL) throw new ZipFormatError("bad central directory");
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const nameStart = offset + 46;
    if (nameStart + nameLength + extraLength > view.byteLength) throw new ZipFormatError("bad central directory");
    const entry: ZipEntry = {
      name: new TextDecoder().decode(bytes.subarray(nameStart, nameStart + nameLength)),
      flags: view.getUint16(offset + 8, true),
      method: view.getUint16(offset + 10, true),
      compressedSize: view.getUint32(offset + 20, true),
      uncompressedSize: view.getUint32(offset + 24, true),
      localHeaderOffset: view.getUint32(offset + 42, true),
    };
    applyZip64Extra(view, nameStart + nameLength, extraLength, entry);
    entries.push(entry);
    offset = nameStart + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The compressed bytes of one entry, located through its local header. */
export function entryData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localHeaderOffset;
  if (at + 30 > view.byteLength || view.getUint32(at, true) !== LOCAL) throw new ZipFormatError("bad local header");
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  if (start + entry.compressedSize > view.byteLength) throw new ZipFormatError("entry data past end of file");
  return bytes.subarray(start, start + entry.compressedSize);
}

/** Entry names from local headers, for a ZIP whose central directory is gone (a truncated upload). */
export function scanLocalNames(bytes: Uint8Array): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const names: string[] = [];
  for (let i = 0; i + 30 <= view.byteLength; i++) {
    if (bytes[i] !== 0x50 || view.getUint32(i, true) !== LOCAL) continue;
    const nameLength = view.getUint16(i + 26, true);
    if (i + 30 + nameLength > view.byteLength) break;
    names.push(new TextDecoder().decode(bytes.subarray(i + 30, i + 30 + nameLength)));
  }
  return names;
}

function findEocd(view: DataView): number {
  const min = Math.max(0, view.byteLength - 22 - 0xffff);
  for (let i = view.byteLength - 22; i >= min; i--) {
    if (view.getUint32(i, true) === EOCD) return i;
  }
  throw new ZipFormatError("no end of central directory");
}

function applyZip64Extra(view: DataView, start: number, length: number, entry: ZipEntry): void {
  for (let p = start; p + 4 <= start + length; ) {
    const id = view.getUint16(p, true);
    const size = view.getUint16(p + 2, true);
    if (id === 0x0001) {
      let q = p + 4;
      const next = () => {
        const v = Number(view.getBigUint64(q, true));
        q += 8;
        return v;
      };
      if (entry.uncompressedSize === MAX_U32) entry.uncompressedSize = next();
      if (entry.compressedSize === MAX_U32) entry.compressedSize = next();
      if (entry.localHeaderOffset === MAX_U32) entry.localHeaderOffset = next();
      return;
    }
    p += 4 + size;
  }
}
