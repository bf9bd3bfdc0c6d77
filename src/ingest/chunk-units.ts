import { cellsOfRowText, splitRow } from "./row-split.ts";
import { estimateTokens, splitText } from "./token-split.ts";
import type { Block } from "./types.ts";

export { countWide, estimateTokens } from "./token-split.ts";

/** The smallest pieces the chunker packs: a sentence, a table/list line, a CSV row, or a whole paragraph. */
export interface Unit {
  text: string;
  /** which block it came from; units of one block are joined by `joiner`, blocks by a blank line */
  block: number;
  kind: "sentence" | "line" | "whole";
  joiner: string;
  page?: number;
  row?: number;
  /** repeated at the top of a chunk that starts with this unit (CSV header, a table's first row) */
  header?: string;
}

// made on first use: building a segmenter loads ICU's break rules (~50–100 ms), which start-up need not wait for
let sentences: Intl.Segmenter | null = null;
const sentenceSegmenter = () => {
  sentences ??= new Intl.Segmenter("en", { granularity: "sentence" });
  return sentences;
};

export function blockToUnits(block: Block, index: number, budget: number, pieceTokens: number, csvHeader?: string): Unit[] {
  const base = { block: index, page: block.page, row: block.row };
  if (block.type === "row") {
    // Rows already name every value ("Header: value"), so a header that would eat the budget is left out.
    // Rows that fit are packed several a chunk; a row wider than the budget is cut between its cells, each
    // part carrying the row's key (row-split.ts) and filling a chunk of its own.
    const header = csvHeader && estimateTokens(csvHeader) <= budget / 4 ? csvHeader : undefined;
    const room = header ? budget - estimateTokens(header) - 1 : budget;
    if (estimateTokens(block.text) <= room) return [{ ...base, text: block.text, kind: "whole", joiner: "; ", header }];
    const parts = splitRow(block.cells ?? cellsOfRowText(block.text), room);
    return parts.map((text) => ({ ...base, text, kind: "whole", joiner: "\n", header }));
  }
  if (block.type === "table" || block.type === "list") {
    const [first = "", ...rest] = block.text.split("\n");
    // a table's first row names the columns; repeat it when the table continues in a new chunk
    const header = block.type === "table" && rest.length > 0 && estimateTokens(first) <= budget / 3 ? first : undefined;
    const room = header ? budget - estimateTokens(header) - 1 : budget;
    const lines = [first, ...rest].flatMap((line, i) =>
      splitText(line, i === 0 ? budget : room, pieceTokens).map((text) => ({ text, header: i === 0 ? undefined : header })),
    );
    return lines.map((l) => ({ ...base, ...l, kind: "line", joiner: "\n" }));
  }
  if (estimateTokens(block.text) <= budget) return [{ ...base, text: block.text, kind: "whole", joiner: " " }];
  const sentences = [...sentenceSegmenter().segment(block.text)].map((s) => s.segment.trim()).filter(Boolean);
  return sentences
    .flatMap((s) => (estimateTokens(s) <= budget ? [s] : splitText(s, pieceTokens, pieceTokens)))
    .map((text) => ({ ...base, text, kind: "sentence", joiner: " " }));
}
