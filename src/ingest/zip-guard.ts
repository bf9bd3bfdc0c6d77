import { createInflateRaw } from "node:zlib";
import { appError } from "../errors/index.ts";
import { entryData, listZipEntries, type ZipEntry } from "./zip-reader.ts";

const MAX_ENTRIES = 5000;

/**
 * Inflates every entry once, counting the bytes that actually come out, before any library unzips the
 * file for real. Declared sizes can lie, so only the running count is trusted: past `maxInflatedBytes`
 * the inflater is destroyed mid-stream. XML parts that declare a DTD are refused, which rules out entity
 * expansion and external entities whatever the XML parser downstream does.
 */
export async function guardZipInflation(bytes: Uint8Array, maxInflatedBytes: number): Promise<ZipEntry[]> {
  let entries: ZipEntry[];
  try {
    entries = listZipEntries(bytes);
  } catch (cause) {
    throw appError("document_unreadable", { cause });
  }
  if (entries.length > MAX_ENTRIES) throw appError("payload_too_large");
  let total = 0;
  for (const entry of entries) {
    if (entry.flags & 1) throw appError("document_encrypted");
    if (entry.method !== 0 && entry.method !== 8) throw appError("document_unreadable");
    let data: Uint8Array;
    try {
      data = entryData(bytes, entry);
    } catch (cause) {
      throw appError("document_unreadable", { cause });
    }
    const scan = createDtdScanner(/\.(xml|rels)$/i.test(entry.name));
    if (entry.method === 0) {
      total += data.byteLength;
      if (total > maxInflatedBytes) throw appError("payload_too_large");
      scan(data);
      continue;
    }
    total = await inflateCounting(data, total, maxInflatedBytes, scan);
  }
  return entries;
}

function inflateCounting(data: Uint8Array, startTotal: number, max: number, onChunk: (chunk: Uint8Array) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    let total = startTotal;
    const inflater = createInflateRaw();
    inflater.on("data", (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > max) {
        inflater.destroy();
        reject(appError("payload_too_large"));
        return;
      }
      try {
        onChunk(chunk);
      } catch (error) {
        inflater.destroy();
        reject(error);
      }
    });
    inflater.on("error", (cause) => reject(appError("document_unreadable", { cause })));
    inflater.on("end", () => resolve(total));
    inflater.end(data);
  });
}

function createDtdScanner(enabled: boolean): (chunk: Uint8Array) => void {
  let tail = "";
  return (chunk) => {
    if (!enabled) return;
    const text = tail + new TextDecoder("latin1").decode(chunk);
    if (text.includes("<!DOCTYPE") || text.includes("<!ENTITY")) {
      throw appError("document_unreadable", { message: "The document declares a DTD, which is not allowed." });
    }
    tail = text.slice(-16);
  };
}
