import type { Block } from "../types.ts";
import { type HeadingStyle, headingLevel, headingStyle } from "./pdf-headings.ts";
import type { Flow } from "./pdf-layout.ts";
import type { Line } from "./pdf-lines.ts";
import { pageTextToParagraphs } from "./pdf-paragraphs.ts";
import { bodySize, flowShape, type StreamItem, type StreamLine } from "./pdf-stream.ts";
import { findTables, type Table } from "./pdf-table.ts";
import { cleanPdfText, documentVocabulary, normalisePdfCharacters } from "./pdf-text.ts";
import { textBlocks } from "./pdf-text-blocks.ts";

/** A page in reading order: its flows, and text drawn in another direction. */
export interface LaidOutPage {
  num: number;
  width: number;
  flows: Flow[];
  aside: string[];
}

const clean = cleanPdfText;
const lineText = (line: Line) => clean(line.frags.map((f) => f.text).join(" "));

/**
 * Blocks of a PDF from its laid-out pages: tables as rows whose text names each cell's column
 * ("State / Territory: Pennsylvania; Permit: 20,001; Handgun: 62,752; ..."), the rest as headings and paragraphs.
 */
export function pdfBlocks(
  pages: LaidOutPage[],
  ocrText: Map<number, string> = new Map(),
): { blocks: Block[]; title?: string; firstLines: string[] } {
  const items: StreamItem[] = [];
  let carried: { table: Table; width: number } | undefined;
  for (const page of pages) {
    for (const flow of page.flows) {
      const shape = flowShape(flow);
      let first = true;
      for (const part of findTables(flow.lines)) {
        if ("table" in part) {
          const table = part.table;
          if (!table.names && carried && sameColumns(carried.table, table, page.width)) table.names = carried.table.names;
          if (table.names) carried = { table, width: page.width };
          items.push({ kind: "blocks", blocks: tableBlocks(table, page.num) });
          first = true;
          continue;
        }
        for (const line of part.lines) {
          const text = lineText(line);
          if (text) items.push({ kind: "line", line, text, page: page.num, flow: shape, first });
          first = false;
        }
      }
    }
    for (const text of page.aside.map(clean).filter(Boolean))
      items.push({ kind: "blocks", blocks: [{ type: "paragraph", text, page: page.num }] });
    const read = ocrText.get(page.num);
    // a page read by OCR has text but no positions: paragraphs from its lines
    if (read) items.push({ kind: "blocks", blocks: [], ocr: read, page: page.num });
  }
  const lines = items.filter((i): i is StreamLine => i.kind === "line");
  const vocab = documentVocabulary([...lines.map((l) => l.text), ...[...ocrText.values()].map(normalisePdfCharacters)]);
  for (const item of items)
    if (item.kind === "blocks" && item.ocr !== undefined)
      item.blocks = pageTextToParagraphs(item.ocr, vocab).map((text): Block => ({ type: "paragraph", text, page: item.page }));
  const style = headingStyle(lines, bodySize(lines));
  const firstLines = lines.filter((l) => l.page === 1).map((l) => l.text);
  return { blocks: textBlocks(items, { style, vocab }), title: printedTitle(lines, style), firstLines };
}

/** The first page's line in its largest type, when that type is a heading's (larger than the text). */
function printedTitle(lines: StreamLine[], style: HeadingStyle): string | undefined {
  const first = lines.filter((l) => l.page === 1);
  const levels = first.map((l) => headingLevel(l, style)).filter((n) => n > 0 && n <= style.sizes.length);
  if (levels.length === 0) return undefined;
  const top = Math.min(...levels);
  // a title set over two lines is one title
  return first
    .filter((l) => headingLevel(l, style) === top)
    .slice(0, 3)
    .map((l) => l.text)
    .join(" ");
}

/** A table continued on the next page without its header: the same number of columns in the same places. */
function sameColumns(a: Table, b: Table, width: number): boolean {
  if (a.bands.length !== b.bands.length) return false;
  return a.bands.every((band, j) => {
    const other = b.bands[j];
    return !!other && band.x < other.right + 0.02 * width && other.x < band.right + 0.02 * width;
  });
}

function tableBlocks(table: Table, page: number): Block[] {
  const names = table.names;
  if (!names) {
    const text = table.rows.map((r) => r.map(clean).join(" | ")).join("\n");
    return [{ type: "table", text, page }];
  }
  return table.rows.flatMap((row): Block[] => {
    const text = row
      .map((cell, j) => (cell ? `${clean(names[j] ?? "") || `column ${j + 1}`}: ${clean(cell)}` : ""))
      .filter(Boolean)
      .join("; ");
    return text ? [{ type: "row", text, page }] : [];
  });
}
