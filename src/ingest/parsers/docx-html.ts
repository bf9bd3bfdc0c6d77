import { normaliseInline } from "../normalise.ts";
import type { Block } from "../types.ts";

interface Table {
  rows: string[][];
  row: string[];
}
interface List {
  ordered: boolean;
  items: number;
  lines: string[];
}
interface Context {
  kind: "cell" | "item";
  text: string;
}

// mammoth escapes only & < > and " (in attributes), so a tag never contains a raw ">".
const TOKEN = /<(\/?)([a-zA-Z0-9]+)([^>]*)>|([^<]+)/g;
const NOTE_LINK = /href="#(footnote|endnote|comment)-(ref-)?\d/;

/**
 * Turns mammoth's HTML into blocks: h1..h6 → heading, p → paragraph, ul/ol → one list block
 * ("- item" / "1. item" lines, nested items indented), table → one table block with `cell | cell` rows.
 * Tables and lists nested inside cells are flattened into that cell's text.
 */
export function htmlToBlocks(html: string): Block[] {
  const blocks: Block[] = [];
  const tables: Table[] = [];
  const lists: List[] = [];
  const contexts: Context[] = [];
  let loose = "";
  let skipDepth = 0;
  let titleOpen = false;
  const append = (text: string) => {
    const top = contexts.at(-1);
    if (top) top.text += text;
    else loose += text;
  };
  const emit = (block: Block) => {
    const text = block.type === "table" || block.type === "list" ? block.text : normaliseInline(block.text);
    if (text) blocks.push({ ...block, text });
  };
  const flushLoose = () => {
    emit({ type: "paragraph", text: loose });
    loose = "";
  };

  for (const [, closing, rawTag, attrs, text] of html.matchAll(TOKEN)) {
    if (text !== undefined) {
      if (skipDepth === 0) append(decodeEntities(text));
      continue;
    }
    const tag = (rawTag ?? "").toLowerCase();
    const heading = /^h([1-6])$/.exec(tag);
    if (tag === "a" && !closing && NOTE_LINK.test(attrs ?? "")) skipDepth++;
    else if (tag === "a" && closing && skipDepth > 0) skipDepth--;
    else if (tag === "br") append(" ");
    else if (tag === "p" || heading) {
      if (contexts.length > 0) append(" ");
      else if (!closing) {
        flushLoose();
        titleOpen = !!heading && /class="doc-title"/.test(attrs ?? "");
      } else if (heading) {
        emit({ type: "heading", text: loose, level: titleOpen ? 0 : Number(heading[1]) });
        loose = "";
        titleOpen = false;
      } else flushLoose();
    } else if (tag === "table") {
      if (!closing) {
        if (tables.length === 0 && contexts.length === 0) flushLoose();
        tables.push({ rows: [], row: [] });
        continue;
      }
      const table = tables.pop();
      const lines = (table?.rows ?? []).map((r) => r.join(" | "));
      if (contexts.length > 0) append(` ${lines.join("; ")} `);
      else emit({ type: "table", text: lines.join("\n") });
    } else if (tag === "tr") {
      const table = tables.at(-1);
      if (!table) continue;
      if (!closing) table.row = [];
      else if (table.row.some((c) => c !== "")) table.rows.push(table.row);
    } else if (tag === "td" || tag === "th") {
      if (!closing) contexts.push({ kind: "cell", text: "" });
      else if (contexts.at(-1)?.kind === "cell") tables.at(-1)?.row.push(normaliseInline(contexts.pop()?.text ?? ""));
    } else if (tag === "ul" || tag === "ol") {
      if (!closing) {
        if (lists.length === 0 && contexts.length === 0) flushLoose();
        flushItem(lists, contexts);
        lists.push({ ordered: tag === "ol", items: 0, lines: [] });
        continue;
      }
      const list = lists.pop();
      const lines = list?.lines ?? [];
      const parent = lists.at(-1);
      if (parent) parent.lines.push(...lines);
      else if (contexts.length > 0) append(` ${lines.map((l) => l.trim()).join("; ")} `);
      else emit({ type: "list", text: lines.join("\n") });
    } else if (tag === "li") {
      const list = lists.at(-1);
      if (!list) continue;
      if (!closing) {
        list.items++;
        contexts.push({ kind: "item", text: "" });
      } else {
        flushItem(lists, contexts);
        if (contexts.at(-1)?.kind === "item") contexts.pop();
      }
    }
  }
  flushLoose();
  return blocks;
}

/** Writes the open item's text so far as a list line (before a nested list, or at </li>). */
function flushItem(lists: List[], contexts: Context[]): void {
  const list = lists.at(-1);
  const item = contexts.at(-1);
  if (!list || item?.kind !== "item") return;
  const text = normaliseInline(item.text);
  item.text = "";
  if (!text) return;
  const marker = list.ordered ? `${list.items}.` : "-";
  list.lines.push(`${"  ".repeat(lists.length - 1)}${marker} ${text}`);
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
    const lower = e.toLowerCase();
    if (lower.startsWith("#x")) return String.fromCodePoint(Number.parseInt(lower.slice(2), 16));
    if (lower.startsWith("#")) return String.fromCodePoint(Number.parseInt(lower.slice(1), 10));
    return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[lower] ?? "";
  });
}
