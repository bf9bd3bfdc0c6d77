import type { Block } from "../types.ts";
import { type HeadingStyle, headingLevel } from "./pdf-headings.ts";
import type { StreamItem, StreamLine } from "./pdf-stream.ts";
import { createTermFinder, isBullet } from "./pdf-terms.ts";
import { joinWrappedLine, mendInlineHyphens } from "./pdf-text.ts";

/** Deepest heading level a block may have; deeper terms start a paragraph with their term instead. */
const MAX_LEVEL = 6;

interface OpenTerm {
  text: string;
  at: number;
  indent: number;
  level: number;
}

/**
 * Running text as blocks: headings (larger or outdented lines), definition terms as deeper headings (so a
 * definition is found under "SHELL BUILTIN COMMANDS > set > -e"), and paragraphs rebuilt from lines, carried
 * on across a column or page break when the sentence runs on.
 */
export function textBlocks(items: StreamItem[], doc: { style: HeadingStyle; vocab: Set<string> }): Block[] {
  const { style, vocab } = doc;
  const blocks: Block[] = [];
  let para = "";
  let paraPage = 0;
  let prev: StreamLine | undefined;
  let section: { text: string; level: number } | undefined;
  const terms: OpenTerm[] = [];
  const termAt = createTermFinder(items);
  // the first paragraph of a definition starts with its term, so the term is in the chunk's text, not only its path
  let defining: string | undefined;
  // where the paragraph goes among the blocks, when footnotes were read between its lines
  let paraAt: number | undefined;
  const flush = () => {
    if (para) {
      const text = mendInlineHyphens(para, vocab);
      const block: Block = { type: "paragraph", text: defining ? `${defining}: ${text}` : text, page: paraPage };
      if (paraAt === undefined) blocks.push(block);
      else blocks.splice(paraAt, 0, block);
      defining = undefined;
    }
    para = "";
    paraAt = undefined;
  };
  // a paragraph interrupted by the footnotes at the foot of its column, to go on at the top of the next one
  let held: { para: string; paraPage: number; defining?: string; at: number; last: StreamLine } | undefined;
  const release = () => {
    if (!held) return;
    flush();
    ({ para, paraPage, defining } = held);
    paraAt = held.at;
    held = undefined;
    flush();
  };
  const add = (text: string, page: number) => {
    if (!para) paraPage = page;
    para = joinWrappedLine(para, text, vocab);
  };
  const heading = (text: string, level: number, page: number) => {
    blocks.push({ type: "heading", text, level, page });
    defining = undefined;
  };

  for (let i = 0; i < items.length; i++) {
    const item = items[i] as StreamItem;
    if (item.kind === "blocks") {
      release();
      flush();
      for (const b of item.blocks) blocks.push(b);
      prev = undefined;
      continue;
    }
    const level = headingLevel(item, style);
    if (level > 0) {
      release();
      flush();
      terms.length = 0;
      // a title set over two lines is one heading
      const last = blocks.at(-1);
      if (last?.type === "heading" && last.level === level && prev && headingLevel(prev, style) === level) last.text += ` ${item.text}`;
      else heading(item.text, level, item.page);
      section = { text: (blocks.at(-1) as Block).text, level };
      prev = item;
      continue;
    }
    // a line left of the open definitions' indent ends them
    let closed = false;
    while (terms.length > 0 && item.line.x < (terms.at(-1) as OpenTerm).indent - 0.4 * item.line.size) {
      terms.pop();
      closed = true;
    }
    const term = termAt(i);
    if (term && !isBullet(term.text)) {
      release();
      flush();
      while (terms.length > 0 && (terms.at(-1) as OpenTerm).at >= term.at - 0.4 * item.line.size) terms.pop();
      const level = (terms.at(-1)?.level ?? section?.level ?? 0) + 1;
      if (level <= MAX_LEVEL) {
        heading(term.text, level, item.page);
        // the term first, then as it is used: "pipefail (set -o pipefail)", "histappend (shopt histappend)"
        const used = [...terms.map((t) => commandWord(t.text)), term.text].join(" ");
        defining = terms.length > 0 ? `${term.text} (${used})` : term.text;
        terms.push({ text: term.text, at: term.at, indent: term.indent, level });
        if (term.rest) add(term.rest, item.page);
      } else add(`${term.text} ${term.rest}`.trim(), item.page);
      i += term.lines - 1;
      prev = lineAtOrSelf(items, i, item);
      continue;
    }
    if (closed) {
      flush();
      // back to the enclosing entry or section: its heading again, so what follows is not filed under the last term
      const back = terms.at(-1) ?? section;
      if (back) heading(back.text, back.level, item.page);
    }
    if (prev && para && isFootnoteStart(prev, item, style.body) && !/[.!?:]["”)]?$/.test(prev.text)) {
      held = { para, paraPage, defining, at: blocks.length, last: prev };
      [para, defining] = ["", undefined];
    } else if (held && item.first && !isSmaller(item, style.body)) {
      flush();
      ({ para, paraPage, defining } = held);
      paraAt = held.at;
      prev = held.last;
      held = undefined;
    }
    if (prev && breaksBefore(prev, item, terms.at(-1)?.indent)) flush();
    add(item.text, item.page);
    prev = item;
  }
  release();
  flush();
  return blocks;
}

const isSmaller = (l: StreamLine, body: number) => l.line.size < 0.92 * body;

/** Smaller type right under the text of the same column: the column's footnotes begin. */
function isFootnoteStart(p: StreamLine, l: StreamLine, body: number): boolean {
  return !l.first && l.page === p.page && isSmaller(l, body) && !isSmaller(p, body);
}

/** The word a nested entry is used with: the command of a synopsis ("set [-abef...]" → "set"), an option ("-o"). */
function commandWord(term: string): string {
  return term.split(/\s+/)[0] ?? term;
}

function lineAtOrSelf(items: StreamItem[], i: number, self: StreamLine): StreamLine {
  const it = items[i];
  return it?.kind === "line" ? it : self;
}

/**
 * Whether a new paragraph starts at `l`: after a wide gap, a change of type size, an indented first line, a
 * bullet, or a short line that ended a sentence. Across a column or page break the text runs on only when the
 * previous line left its sentence open.
 */
function breaksBefore(p: StreamLine, l: StreamLine, indent?: number): boolean {
  const size = p.line.size;
  if (Math.abs(l.line.size - size) > 0.12 * size) return true;
  if (isBullet(l.line.frags[0]?.text ?? "") || /^[•·▪◦‣]\s/.test(l.text)) return true;
  const left = indent ?? l.flow.left;
  if (l.first || l.page !== p.page) {
    const open = !/[.!?:;"”)\]]$/.test(p.text) || /-$/.test(p.text);
    // on to the top of the next column or page; not down past a gap to what follows a masthead or a table
    const below = l.page === p.page && l.line.y - p.line.y > 2 * Math.max(Math.min(p.flow.pitch, l.flow.pitch), size);
    return !open || below || l.line.x > left + 0.6 * l.line.size;
  }
  const short = p.line.right < p.flow.right - 0.12 * (p.flow.right - p.flow.left);
  const ended = /[.!?:]["”)]?$/.test(p.text);
  // extra space between lines ends a paragraph; a line that runs on needs more than a raised footnote mark
  const step = l.line.y - p.line.y;
  const pitch = Math.max(p.flow.pitch, size);
  if (step > (ended || short ? 1.3 : 2) * pitch) return true;
  // an indented line starts a paragraph after a sentence or a short line (a heading); after a full line that
  // runs on, it is the hanging indent of the same entry ("STEVEN E. MERCER, ESQ., ... Los" / "Angeles, Cal.")
  if (l.line.x > left + 0.6 * size && p.line.x <= left + 0.6 * size && (ended || short)) return true;
  return short && ended;
}
