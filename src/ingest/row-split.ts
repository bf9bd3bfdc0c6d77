import { estimateTokens, splitText } from "./token-split.ts";

export interface Cell {
  name: string;
  value: string;
}

const cellText = (c: Cell) => (c.name ? `${c.name}: ${c.value}` : c.value);

/** How many leading cells name the row: the first, and the second too when both are short (an id and a name). */
const KEY_CELL_CHARS = 40;

/** Cells of a row kept only as text (`Name: value; Name: value`), for rows parsed before cells were kept. */
export function cellsOfRowText(text: string): Cell[] {
  return text.split("; ").map((pair) => {
    const at = pair.indexOf(": ");
    return at > 0 ? { name: pair.slice(0, at), value: pair.slice(at + 2) } : { name: "", value: pair };
  });
}

/**
 * A CSV row wider than the chunk budget, cut between cells into parts that each fit it. Every part starts with
 * the row's identifying cells (its first one or two: what a reader looks the row up by) and keeps the
 * `Name: value; Name: value` shape of a whole row, so each part still says which row and which columns it holds.
 * A single cell wider than the budget is cut between words, each piece keeping its column name.
 */
export function splitRow(cells: Cell[], budget: number): string[] {
  const quarter = Math.max(4, Math.floor(budget / 4));
  const short = (c: Cell | undefined) => c !== undefined && cellText(c).length <= KEY_CELL_CHARS;
  const keyCells = short(cells[0]) && short(cells[1]) && cells.length > 2 ? 2 : 1;
  // the key itself is bounded: a huge first cell keeps only what fits in a quarter of the budget
  const key = splitText(cells.slice(0, keyCells).map(cellText).join("; "), quarter, quarter)[0] ?? "";
  const room = Math.max(4, budget - estimateTokens(key) - 1);
  const parts: string[] = [];
  let part: string[] = [];
  let used = 0;
  const flush = () => {
    if (part.length > 0) parts.push([key, ...part].join("; "));
    part = [];
    used = 0;
  };
  for (const cell of cells.slice(keyCells)) {
    for (const piece of cellPieces(cell, room)) {
      const cost = estimateTokens(piece) + 1;
      if (part.length > 0 && used + cost > room) flush();
      part.push(piece);
      used += cost;
    }
  }
  flush();
  // a row of key cells only is just the key
  return parts.length > 0 ? parts : [key];
}

function cellPieces(cell: Cell, room: number): string[] {
  const whole = cellText(cell);
  if (estimateTokens(whole) < room) return [whole];
  const label = cell.name ? `${cell.name.slice(0, 80)}: ` : "";
  const valueRoom = Math.max(4, room - estimateTokens(label) - 1);
  return splitText(cell.value, valueRoom, valueRoom).map((v) => label + v);
}
