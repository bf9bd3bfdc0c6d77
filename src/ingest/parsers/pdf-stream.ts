import type { Block } from "../types.ts";
import type { Flow } from "./pdf-layout.ts";
import type { Line } from "./pdf-lines.ts";

/** One line of running text in reading order, with what the block builder needs to know about where it sits. */
export interface StreamLine {
  kind: "line";
  line: Line;
  /** the line's fragments as text, characters normalised */
  text: string;
  page: number;
  flow: FlowShape;
  /** first line of its flow (a column, or a page) */
  first: boolean;
}

/** Blocks made apart from the running text (a table's rows, a page read by OCR), in their place among the lines. */
export interface StreamBlocks {
  kind: "blocks";
  blocks: Block[];
  /** the OCR text of a page, made into paragraphs once the document's vocabulary is known */
  ocr?: string;
  page?: number;
}

export type StreamItem = StreamLine | StreamBlocks;

/** Where a flow's text starts and ends, and its usual line spacing. */
export interface FlowShape {
  left: number;
  right: number;
  pitch: number;
  column: boolean;
}

export function flowShape(flow: Flow): FlowShape {
  const lines = flow.lines;
  const starts = lines.map((l) => l.x).sort((a, b) => a - b);
  const rights = lines.map((l) => l.right).sort((a, b) => a - b);
  const steps: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const [a, b] = [lines[i - 1] as Line, lines[i] as Line];
    if (Math.abs(a.size - b.size) < 0.5) steps.push(b.y - a.y);
  }
  steps.sort((a, b) => a - b);
  const size = lines[0]?.size ?? 10;
  return {
    left: starts[Math.floor(starts.length * 0.2)] ?? 0,
    right: rights[Math.floor(rights.length * 0.9)] ?? 0,
    pitch: steps[Math.floor(steps.length / 2)] ?? 1.25 * size,
    column: flow.column,
  };
}

/** The type size most of the document's characters are set in. */
export function bodySize(lines: Iterable<StreamLine>): number {
  const weight = new Map<number, number>();
  for (const l of lines) {
    const size = Math.round(l.line.size * 2) / 2;
    weight.set(size, (weight.get(size) ?? 0) + l.text.length);
  }
  let best = 10;
  let most = -1;
  for (const [size, w] of weight) if (w > most) [best, most] = [size, w];
  return best;
}
