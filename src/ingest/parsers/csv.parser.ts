import { parse as parseCsv } from "csv-parse/sync";
import { appError } from "../../errors/index.ts";
import { sniffDelimiter } from "../csv-sniff.ts";
import { normaliseInline, normaliseNewlines } from "../normalise.ts";
import { decodeText, looksBinary } from "../text-decode.ts";
import type { Block, ParsedDocument, Parser } from "../types.ts";

/** Rows up to this length fit any chunk budget (256+ tokens) whole. */
const LONG_ROW_CHARS = 1000;

export const csvParser: Parser = {
  kind: "csv",
  async parse(bytes) {
    if (looksBinary(bytes)) throw appError("document_unreadable");
    const text = stripPreamble(normaliseNewlines(decodeText(bytes).text).replace(/^\ufeff/, ""));
    const records = readRecords(text);
    const headerAt = records.findIndex((r) => r.some((cell) => cell !== ""));
    const headerCells = records[headerAt];
    if (!headerCells) throw appError("no_extractable_text");
    const dataRecords = records.slice(headerAt + 1);
    // a loop, not Math.max(...): a million records would overflow the call stack
    let width = 0;
    for (const r of records) width = Math.max(width, r.length);
    const names = Array.from({ length: width }, (_, i) => headerCells[i] || `column ${i + 1}`);
    const blocks: Block[] = [];
    dataRecords.forEach((cells, i) => {
      const text = cells
        .map((value, c) => (value ? `${names[c]}: ${value}` : ""))
        .filter(Boolean)
        .join("; ");
      if (!text) return;
      const block: Block = { type: "row", text, row: i + 1 };
      // a row that may not fit one chunk keeps its cells, to be cut between them; short rows don't need them
      if (text.length > LONG_ROW_CHARS) block.cells = cells.flatMap((value, c) => (value ? [{ name: names[c] as string, value }] : []));
      blocks.push(block);
    });
    const header = names.join(" | ");
    // A header-only file still says something; keep it rather than reporting no text.
    if (blocks.length === 0) blocks.push({ type: "paragraph", text: header });
    return { kind: "csv", blocks, header } satisfies ParsedDocument;
  },
};

/** Records with every cell normalised (quoted newlines become spaces). */
function readRecords(text: string): string[][] {
  const { delimiter, fieldSeparators } = sniffDelimiter(text);
  let raw: string[][];
  try {
    raw = parseCsv(text, {
      delimiter: fieldSeparators > 0 ? delimiter : ",",
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      // a damaged record (e.g. a quote left open at a truncated end) costs that record, not the file
      skip_records_with_error: true,
    }) as string[][];
  } catch (cause) {
    throw appError("document_unreadable", { cause });
  }
  return raw.map((r) => r.map((cell) => normaliseInline(cell)));
}

/** Drops "#" comment lines that some exports put before the header; later "#" lines are data. */
function stripPreamble(text: string): string {
  let at = 0;
  while (at < text.length && (text[at] === "#" || text[at] === "\n")) {
    const next = text.indexOf("\n", at);
    if (next === -1) return "";
    at = next + 1;
  }
  return text.slice(at);
}
