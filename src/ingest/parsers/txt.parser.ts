import { appError } from "../../errors/index.ts";
import { splitGutenberg } from "../gutenberg.ts";
import { normaliseDocumentText, normaliseInline, normaliseLines } from "../normalise.ts";
import { decodeText, looksBinary } from "../text-decode.ts";
import type { Block, ParsedDocument, Parser } from "../types.ts";

const ATX_HEADING = /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/;
const SETEXT_RULE = /^\s{0,3}(=+|-+)\s*$/;
const LIST_ITEM = /^\s*([-*+•]|\d+[.)])\s+\S/;
const FENCE = /^\s{0,3}(```|~~~)/;
/** a chapter title standing alone: "CHAPTER I. Down the Rabbit-Hole", "Chapter 3", "II. THE RED-HEADED LEAGUE" */
const CHAPTER = /^(?:chapter|book|part|kapitel|chapitre|cap[íi]tulo|capitolo|teil)\s+(?:[ivxlcdm]+|\d+)\b.{0,80}$/i;
const NUMBERED_TITLE = /^[IVXLC]{1,7}\.\s+[^\p{Ll}]{3,80}$/u;

export const txtParser: Parser = {
  kind: "txt",
  async parse(bytes) {
    if (looksBinary(bytes)) throw appError("document_unreadable");
    const text = normaliseDocumentText(decodeText(bytes).text);
    const book = splitGutenberg(text);
    const blocks = textToBlocks(book?.body ?? text);
    if (blocks.length === 0) throw appError("no_extractable_text");
    return { kind: "txt", blocks, ...(book ? { meta: book.meta } : {}) } satisfies ParsedDocument;
  },
};

/** Paragraphs are separated by blank lines; markdown headings (ATX and setext) become heading blocks. */
export function textToBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let lines: string[] = [];
  let inFence = false;
  const flush = () => {
    const block = linesToBlock(lines);
    if (block) blocks.push(block);
    lines = [];
  };
  for (const line of text.split("\n")) {
    if (FENCE.test(line)) inFence = !inFence;
    const atx = inFence ? null : line.match(ATX_HEADING);
    const setext = inFence || lines.length !== 1 ? null : line.match(SETEXT_RULE);
    if (atx?.[1] && atx[2]) {
      flush();
      pushHeading(blocks, atx[2], atx[1].length);
    } else if (setext?.[1]) {
      const title = lines[0] ?? "";
      lines = [];
      pushHeading(blocks, title, setext[1].startsWith("=") ? 1 : 2);
    } else if (!inFence && line.trim() === "") flush();
    else lines.push(line);
  }
  flush();
  return blocks;
}

function pushHeading(blocks: Block[], raw: string, level: number): void {
  const text = normaliseInline(raw);
  if (text) blocks.push({ type: "heading", text, level });
}

function linesToBlock(lines: string[]): Block | undefined {
  const content = lines.filter((l) => l.trim() !== "");
  if (content.length === 0) return undefined;
  const only = content.length === 1 ? normaliseInline(content[0] ?? "") : "";
  if (only && (CHAPTER.test(only) || (NUMBERED_TITLE.test(only) && !/[.!?,;:]$/.test(only))))
    return { type: "heading", text: only, level: 1 };
  if (content.length > 1 && content.every((l) => LIST_ITEM.test(l))) {
    const text = normaliseLines(content.join("\n"));
    return text ? { type: "list", text } : undefined;
  }
  const text = normaliseInline(content.join("\n"));
  return text ? { type: "paragraph", text } : undefined;
}
