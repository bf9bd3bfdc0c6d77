import { blockToUnits, countWide, estimateTokens, type Unit } from "./chunk-units.ts";
import { documentCard } from "./document-card.ts";
import { splitText } from "./token-split.ts";
import type { ChunkDraft, ParsedDocument } from "./types.ts";

export { estimateTokens } from "./chunk-units.ts";

export interface ChunkOptions {
  maxTokens: number;
  overlapTokens: number;
}

export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = { maxTokens: 350, overlapTokens: 50 };

interface Section {
  path: string[];
  levels: number[];
  hadBody: boolean;
}

/**
 * Structure-aware chunking: a heading always starts a new chunk and sets the heading path ("H1 > H2");
 * within a section, blocks are packed up to the token budget; an oversize paragraph is split on sentence
 * boundaries and consecutive pieces share up to `overlapTokens`; table and CSV chunks repeat their header
 * row. Page and row ranges follow the units a chunk holds.
 */
export function chunkDocument(doc: ParsedDocument, opts: ChunkOptions = DEFAULT_CHUNK_OPTIONS): ChunkDraft[] {
  const maxTokens = Math.max(8, Math.floor(opts.maxTokens));
  const overlapTokens = Math.max(0, Math.min(Math.floor(opts.overlapTokens), Math.floor(maxTokens / 2)));
  const pieceTokens = Math.max(4, Math.min(maxTokens, overlapTokens || maxTokens));
  const card = documentCard(doc);
  const chunks: ChunkDraft[] = card ? [card] : [];
  const section: Section = { path: [], levels: [], hadBody: false };
  let packer = createPacker(maxTokens, overlapTokens, section.path.join(" > "));
  const closeSection = () => {
    for (const c of packer.finish()) chunks.push(c);
  };

  doc.blocks.forEach((block, index) => {
    if (block.type === "heading") {
      closeSection();
      const level = block.level ?? 1;
      emitBareHeading(chunks, section, level);
      while (section.levels.length > 0 && (section.levels.at(-1) ?? 0) >= level) {
        section.levels.pop();
        section.path.pop();
      }
      section.levels.push(level);
      section.path.push(block.text);
      section.hadBody = false;
      packer = createPacker(maxTokens, overlapTokens, section.path.join(" > "));
      return;
    }
    section.hadBody = true;
    for (const unit of blockToUnits(block, index, maxTokens, pieceTokens, doc.header)) packer.add(unit);
  });
  closeSection();
  emitBareHeading(chunks, section, 0);
  const capped = chunks.flatMap((c) => capChunk(c, maxTokens));
  capped.forEach((c, ord) => {
    c.ord = ord;
  });
  return capped;
}

/** No chunk, of any format, is more than twice the budget (a repeated header and overlap may pass it a little). */
export const chunkCapTokens = (maxTokens: number) => 2 * Math.max(8, Math.floor(maxTokens));

/** The hard cap: whatever the packing produced, a chunk over it is cut between words into pieces of the budget. */
function capChunk(c: ChunkDraft, maxTokens: number): ChunkDraft[] {
  if (c.tokenCount <= chunkCapTokens(maxTokens)) return [c];
  return splitText(c.text, maxTokens, maxTokens).map((text) => ({ ...c, text, tokenCount: estimateTokens(text) }));
}

/** A heading with nothing under it (and no sub-heading to carry it in a path) still becomes a chunk. */
function emitBareHeading(chunks: ChunkDraft[], section: Section, nextLevel: number): void {
  const text = section.path.at(-1);
  if (section.hadBody || text === undefined || nextLevel > (section.levels.at(-1) ?? 0)) return;
  chunks.push({ ord: 0, text, headingPath: section.path.join(" > "), tokenCount: estimateTokens(text) });
  section.hadBody = true;
}

function createPacker(maxTokens: number, overlapTokens: number, headingPath: string) {
  const done: ChunkDraft[] = [];
  let units: Unit[] = [];
  let header: string | undefined;
  let len = 0;
  let wide = 0;
  const tokens = (extraLen: number, extraWide: number) => extraWide + wide + Math.ceil((len + extraLen - wide - extraWide) / 4);
  const joinerBefore = (u: Unit) => joinerBetween(units.at(-1), u, header);
  const push = (u: Unit) => {
    const joiner = joinerBefore(u);
    len += joiner.length + u.text.length;
    wide += countWide(u.text);
    units.push(u);
  };
  const start = (first: Unit, carried: Unit[]) => {
    units = [];
    header = first.header;
    len = header?.length ?? 0;
    wide = header ? countWide(header) : 0;
    for (const u of carried) push(u);
    push(first);
  };
  const flush = () => {
    if (units.length === 0) return;
    done.push(toDraft(units, header, headingPath));
  };
  return {
    add(u: Unit) {
      if (units.length === 0) return start(u, []);
      const joiner = joinerBefore(u);
      if (tokens(joiner.length + u.text.length, countWide(u.text)) <= maxTokens) return push(u);
      flush();
      start(u, overlapFor(units, u, Math.min(overlapTokens, maxTokens - estimateTokens(u.text) - 1)));
    },
    finish(): ChunkDraft[] {
      flush();
      units = [];
      return done;
    },
  };
}

/** Trailing sentences of the previous chunk, from the same paragraph, that fit in the overlap budget. */
function overlapFor(previous: Unit[], next: Unit, budget: number): Unit[] {
  if (next.kind !== "sentence" || budget <= 0) return [];
  const carried: Unit[] = [];
  let used = 0;
  for (let i = previous.length - 1; i > 0; i--) {
    const u = previous[i];
    if (!u || u.block !== next.block || u.kind !== "sentence") break;
    used += estimateTokens(u.text) + 1;
    if (used > budget) break;
    carried.unshift(u);
  }
  return carried;
}

/** Same block: the unit's own joiner; CSV row after row: a newline; otherwise a blank line. */
function joinerBetween(prev: Unit | undefined, u: Unit, header: string | undefined): string {
  if (!prev) return header === undefined ? "" : "\n";
  if (prev.block === u.block) return u.joiner;
  return prev.row !== undefined && u.row !== undefined ? "\n" : "\n\n";
}

function toDraft(units: Unit[], header: string | undefined, headingPath: string): ChunkDraft {
  let text = header ?? "";
  units.forEach((u, i) => {
    text += joinerBetween(units[i - 1], u, header) + u.text;
  });
  const draft: ChunkDraft = { ord: 0, text, headingPath, tokenCount: estimateTokens(text) };
  for (const u of units) {
    if (u.page !== undefined)
      [draft.pageStart, draft.pageEnd] = [Math.min(draft.pageStart ?? u.page, u.page), Math.max(draft.pageEnd ?? u.page, u.page)];
    if (u.row !== undefined)
      [draft.rowStart, draft.rowEnd] = [Math.min(draft.rowStart ?? u.row, u.row), Math.max(draft.rowEnd ?? u.row, u.row)];
  }
  return draft;
}
