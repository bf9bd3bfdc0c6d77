import { estimateTokens } from "./chunk-units.ts";
import type { ChunkDraft, ParsedDocument } from "./types.ts";

export const CARD_HEADING = "Document card";
const MAX_FIELDS = 16;

/**
 * The document card as a chunk of its own, written like a table row ("Title: …; Author: …; Release date: …") so
 * the composer quotes the asked field beside the title, and indexed like any other chunk so it is searchable.
 * Null when the document says nothing about itself.
 */
export function documentCard(doc: ParsedDocument): ChunkDraft | null {
  const fields = (doc.meta?.fields ?? []).filter((f) => f.label.trim() && f.value.trim()).slice(0, MAX_FIELDS);
  if (fields.length === 0) return null;
  if (doc.pages && !fields.some((f) => /^pages$/i.test(f.label))) fields.push({ label: "Pages", value: String(doc.pages) });
  // the row shape splits cells on "; ", so a value must not contain one
  const text = fields.map((f) => `${f.label.trim()}: ${f.value.replace(/;\s/g, ", ").replace(/\s+/g, " ").trim()}`).join("; ");
  return { ord: 0, text, headingPath: CARD_HEADING, tokenCount: estimateTokens(text), ...(doc.pages ? { pageStart: 1, pageEnd: 1 } : {}) };
}
