import { CARD_HEADING, CARD_KEYWORDS } from "../shared/document-card-labels.ts";
import { estimateTokens } from "./chunk-units.ts";
import type { ChunkDraft, ParsedDocument } from "./types.ts";

export { CARD_HEADING, CARD_KEYWORDS };

const KEYWORDS = 12;
const MAX_FIELDS = 16;

const WORD = /[\p{L}][\p{L}\p{N}'’-]{2,}/gu;
const COMMON = new Set(
  "the and for that this with from are was were have has had not but all any can may will shall would should could must which their there they them than then into its his her our your you she him also each such other more most only over under been being these those when where what who whom whose how does did done upon about after before while page pages".split(
    " ",
  ),
);

/** The words a document uses most (stop words and page furniture aside): its subject, learned from its own text. */
function frequentWords(doc: ParsedDocument): string[] {
  const counts = new Map<string, number>();
  const blocksWith = new Map<string, number>();
  let seen = 0;
  let blocks = 0;
  for (const b of doc.blocks) {
    blocks++;
    const here = new Set<string>();
    for (const m of b.text.matchAll(WORD)) {
      const w = m[0].toLowerCase();
      if (COMMON.has(w)) continue;
      counts.set(w, (counts.get(w) ?? 0) + 1);
      here.add(w);
    }
    for (const w of here) blocksWith.set(w, (blocksWith.get(w) ?? 0) + 1);
    // a long book's subject is known long before its end
    seen += b.text.length;
    if (seen > 200_000) break;
  }
  // a word in most paragraphs is a function word of the document's language ("und", "der"), not its subject
  const functional = (w: string) => blocks >= 20 && (blocksWith.get(w) ?? 0) > blocks * 0.35;
  return [...counts]
    .filter(([w]) => !functional(w))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, KEYWORDS)
    .map(([w]) => w);
}

/**
 * The document card as a chunk of its own, written like a table row ("Title: …; Author: …; Release date: …") so
 * the composer quotes the asked field beside the title, and indexed like any other chunk so it is searchable.
 * Null when the document says nothing about itself.
 */
export function documentCard(doc: ParsedDocument): ChunkDraft | null {
  const fields = (doc.meta?.fields ?? []).filter((f) => f.label.trim() && f.value.trim()).slice(0, MAX_FIELDS);
  if (fields.length === 0) return null;
  if (doc.pages && !fields.some((f) => /^pages$/i.test(f.label))) fields.push({ label: "Pages", value: String(doc.pages) });
  const keywords = frequentWords(doc);
  if (keywords.length > 0) fields.push({ label: CARD_KEYWORDS, value: keywords.join(", ") });
  // the row shape splits cells on "; ", so a value must not contain one
  const text = fields.map((f) => `${f.label.trim()}: ${f.value.replace(/;\s/g, ", ").replace(/\s+/g, " ").trim()}`).join("; ");
  return { ord: 0, text, headingPath: CARD_HEADING, tokenCount: estimateTokens(text), ...(doc.pages ? { pageStart: 1, pageEnd: 1 } : {}) };
}
