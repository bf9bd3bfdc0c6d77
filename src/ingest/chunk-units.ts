import type { Block } from "./types.ts";

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

// CJK, kana and hangul run close to one token per character; other scripts about four characters a token.
const WIDE = /[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/g;
const SENTENCES = new Intl.Segmenter("en", { granularity: "sentence" });

export function countWide(text: string): number {
  return text.match(WIDE)?.length ?? 0;
}

/** Cheap, deterministic token estimate: wide characters count one each, the rest ceil(chars / 4). */
export function estimateTokens(text: string): number {
  const wide = countWide(text);
  return wide + Math.ceil((text.length - wide) / 4);
}

export function blockToUnits(block: Block, index: number, budget: number, pieceTokens: number, csvHeader?: string): Unit[] {
  const base = { block: index, page: block.page, row: block.row };
  if (block.type === "row") {
    // Rows already name every value ("Header: value"), so a header that would eat the budget is left out.
    const header = csvHeader && estimateTokens(csvHeader) <= budget / 4 ? csvHeader : undefined;
    const room = header ? budget - estimateTokens(header) - 1 : budget;
    if (estimateTokens(block.text) <= room) return [{ ...base, text: block.text, kind: "whole", joiner: "; ", header }];
    // a wide row is cut between "Header: value" pairs, never inside one unless a pair alone is too big
    return block.text
      .split("; ")
      .flatMap((pair) => splitText(pair, room, room))
      .map((text) => ({ ...base, text, kind: "line", joiner: "; ", header }));
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
  const sentences = [...SENTENCES.segment(block.text)].map((s) => s.segment.trim()).filter(Boolean);
  return sentences
    .flatMap((s) => (estimateTokens(s) <= budget ? [s] : splitText(s, pieceTokens, pieceTokens)))
    .map((text) => ({ ...base, text, kind: "sentence", joiner: " " }));
}

/** Splits on whitespace into pieces of at most `pieceTokens` when the text exceeds `budget`. */
function splitText(text: string, budget: number, pieceTokens: number): string[] {
  if (estimateTokens(text) <= budget) return [text];
  const limit = Math.max(1, Math.min(budget, pieceTokens));
  const pieces: string[] = [];
  let current = "";
  for (const word of text.split(/\s+/).flatMap((w) => hardSplit(w, limit))) {
    const candidate = current ? `${current} ${word}` : word;
    if (current && estimateTokens(candidate) > limit) {
      pieces.push(current);
      current = word;
    } else current = candidate;
  }
  if (current) pieces.push(current);
  return pieces;
}

/** A single "word" longer than the budget (CJK runs, base64, URLs) is cut by characters. */
function hardSplit(word: string, limit: number): string[] {
  if (estimateTokens(word) <= limit) return [word];
  const pieces: string[] = [];
  let current = "";
  for (const ch of word) {
    if (current && estimateTokens(current + ch) > limit) {
      pieces.push(current);
      current = "";
    }
    current += ch;
  }
  if (current) pieces.push(current);
  return pieces;
}
