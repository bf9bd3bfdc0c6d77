import { inflateRawSync } from "node:zlib";
import type { DocumentMeta } from "../types.ts";
import { entryData, type ZipEntry } from "../zip-reader.ts";

/** docProps/core.xml is a few hundred bytes; anything larger is not worth reading for a card. */
const MAX_CORE_BYTES = 64 * 1024;
const TAGS: [RegExp, string][] = [
  [/<dc:title>([^<]{1,300})<\/dc:title>/, "Title"],
  [/<dc:subject>([^<]{1,300})<\/dc:subject>/, "Subject"],
  [/<dc:creator>([^<]{1,200})<\/dc:creator>/, "Author"],
  [/<dcterms:created[^>]*>([^<]{4,40})<\/dcterms:created>/, "Created"],
  [/<dcterms:modified[^>]*>([^<]{4,40})<\/dcterms:modified>/, "Modified"],
];
const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'" };

/**
 * The DOCX core properties (title, subject, author, dates) for the document card. Runs after the zip guard, so
 * the entry is known to inflate within the limits; a missing or odd part gives no card, never an error.
 */
export function docxCoreProperties(bytes: Uint8Array, entries: ZipEntry[]): DocumentMeta | undefined {
  const entry = entries.find((e) => e.name === "docProps/core.xml");
  if (!entry || entry.uncompressedSize > MAX_CORE_BYTES) return undefined;
  let xml: string;
  try {
    const data = entryData(bytes, entry);
    xml = new TextDecoder().decode(entry.method === 0 ? data : inflateRawSync(data, { maxOutputLength: MAX_CORE_BYTES }));
  } catch {
    return undefined;
  }
  const fields: DocumentMeta["fields"] = [];
  for (const [re, label] of TAGS) {
    const raw = re
      .exec(xml)?.[1]
      ?.replace(/&(amp|lt|gt|quot|apos);/g, (e) => ENTITIES[e] ?? e)
      .trim();
    if (!raw) continue;
    // W3CDTF timestamps read as dates: "2016-11-29T03:47:00Z" → "2016-11-29"
    fields.push({ label, value: /^\d{4}-\d{2}-\d{2}T/.test(raw) ? raw.slice(0, 10) : raw });
  }
  return fields.length > 0 ? { fields } : undefined;
}
