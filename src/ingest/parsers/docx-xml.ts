import { inflateRawSync } from "node:zlib";
import { normaliseInline } from "../normalise.ts";
import type { Block } from "../types.ts";
import { entryData, type ZipEntry } from "../zip-reader.ts";

/**
 * A DOCX whose main XML is larger than this is read straight from its XML (below) instead of through mammoth,
 * whose document model takes about 50 times the XML in memory: 44 MB of XML needed 2.3 GB, over the parser's
 * memory limit, so a large but valid document failed.
 */
export const LARGE_DOCX_XML_BYTES = 8 * 1024 * 1024;

const TOKEN = /<(\/?)w:(p|r|t|tab|br|cr|tbl|tr|tc|pStyle|numPr|ilvl|numId|del|instrText)\b([^>]*?)(\/?)>|([^<]+)|<[^>]*>/g;
const val = (attrs: string) => /w:val="([^"]*)"/.exec(attrs)?.[1];

/** The inflated bytes of one zip entry (already bounded by guardZipInflation). */
export function entryText(bytes: Uint8Array, entry: ZipEntry): string {
  const data = entryData(bytes, entry);
  return new TextDecoder().decode(entry.method === 0 ? data : inflateRawSync(data));
}

/** Style ids whose name is "heading N" or "Title" (or that carry an outline level), with their level. */
export function headingStyles(stylesXml: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of stylesXml.matchAll(/<w:style\b[^>]*w:styleId="([^"]+)"[^>]*>([\s\S]*?)<\/w:style>/g)) {
    const [, id = "", body = ""] = m;
    const name = /<w:name w:val="([^"]+)"/.exec(body)?.[1]?.toLowerCase() ?? "";
    const heading = /^heading (\d)$/.exec(name);
    const outline = /<w:outlineLvl w:val="(\d)"/.exec(body);
    if (heading) out.set(id, Number(heading[1]));
    else if (name === "title") out.set(id, 0);
    else if (outline) out.set(id, Number(outline[1]) + 1);
  }
  return out;
}

/** numId → list levels that are numbered (not bullets), from numbering.xml. */
export function numberedLevels(numberingXml: string): Map<string, Set<string>> {
  const abstract = new Map<string, Set<string>>();
  for (const m of numberingXml.matchAll(/<w:abstractNum\b[^>]*w:abstractNumId="([^"]+)"[^>]*>([\s\S]*?)<\/w:abstractNum>/g)) {
    const levels = new Set<string>();
    for (const l of (m[2] ?? "").matchAll(/<w:lvl\b[^>]*w:ilvl="(\d+)"[^>]*>([\s\S]*?)<\/w:lvl>/g))
      if (!/<w:numFmt w:val="(bullet|none)"/.test(l[2] ?? "")) levels.add(l[1] ?? "0");
    abstract.set(m[1] ?? "", levels);
  }
  const out = new Map<string, Set<string>>();
  for (const m of numberingXml.matchAll(/<w:num\b[^>]*w:numId="([^"]+)"[^>]*>[\s\S]*?<w:abstractNumId w:val="([^"]+)"/g))
    out.set(m[1] ?? "", abstract.get(m[2] ?? "") ?? new Set());
  return out;
}

/**
 * Blocks from WordprocessingML in one pass over the XML: paragraphs (headings by style), list items (numbered
 * paragraphs) gathered into list blocks, tables as `cell | cell` rows. Deleted runs and field codes are skipped.
 * Plainer than mammoth's reading, but linear in time and close to the text's size in memory.
 */
export function docxXmlToBlocks(
  documentXml: string,
  headings: Map<string, number>,
  numbered: Map<string, Set<string>> = new Map(),
): Block[] {
  const blocks: Block[] = [];
  let para = "";
  let style: string | null = null;
  let listItem = false;
  let level = "0";
  let numId = "";
  const counters = new Map<string, number>();
  let inText = false;
  let skip = 0;
  let list: string[] = [];
  const tables: { rows: string[][]; row: string[]; cell: string }[] = [];
  const flushList = () => {
    if (list.length > 0) blocks.push({ type: "list", text: list.join("\n") });
    list = [];
    counters.clear();
  };
  const marker = () => {
    if (!numbered.get(numId)?.has(level)) return "-";
    const n = (counters.get(`${numId}:${level}`) ?? 0) + 1;
    counters.set(`${numId}:${level}`, n);
    return `${n}.`;
  };
  const endParagraph = () => {
    const text = normaliseInline(para);
    para = "";
    const table = tables.at(-1);
    if (table) {
      if (text) table.cell += `${table.cell ? " " : ""}${text}`;
    } else if (text) {
      const heading = style === null ? undefined : headings.get(style);
      if (listItem) list.push(`${"  ".repeat(Number(level) || 0)}${marker()} ${text}`);
      else {
        flushList();
        blocks.push(heading === undefined ? { type: "paragraph", text } : { type: "heading", text, level: heading });
      }
    }
    style = null;
    listItem = false;
    level = "0";
    numId = "";
  };
  for (const [, closing, tag, attrs = "", selfClosing, text] of documentXml.matchAll(TOKEN)) {
    if (text !== undefined) {
      if (inText && skip === 0) para += decodeXml(text);
      continue;
    }
    if (tag === undefined) continue;
    const open = !closing;
    if (tag === "del" || tag === "instrText") skip += open && !selfClosing ? 1 : closing ? -1 : 0;
    else if (tag === "t") inText = open && !selfClosing;
    else if ((tag === "tab" || tag === "br" || tag === "cr") && skip === 0) para += " ";
    else if (tag === "pStyle" && open) style = val(attrs) ?? null;
    else if (tag === "numPr" && open) listItem = true;
    else if (tag === "ilvl" && open) level = val(attrs) ?? "0";
    else if (tag === "numId" && open) numId = val(attrs) ?? "";
    else if (tag === "p" && (closing || selfClosing)) endParagraph();
    else if (tag === "tbl" && open) {
      if (tables.length === 0) flushList();
      tables.push({ rows: [], row: [], cell: "" });
    } else if (tag === "tbl") {
      const done = tables.pop();
      const lines = (done?.rows ?? []).map((r) => r.join(" | "));
      const outer = tables.at(-1);
      if (outer) outer.cell += ` ${lines.join("; ")}`;
      else if (lines.length > 0) blocks.push({ type: "table", text: lines.join("\n") });
    } else if (tag === "tr") {
      const t = tables.at(-1);
      if (t && open) t.row = [];
      else if (t?.row.some((c) => c !== "")) t.rows.push(t.row);
    } else if (tag === "tc" && closing) {
      const t = tables.at(-1);
      if (t) {
        t.row.push(normaliseInline(t.cell));
        t.cell = "";
      }
    }
  }
  flushList();
  return blocks;
}

function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
    const lower = e.toLowerCase();
    const code = lower.startsWith("#x")
      ? Number.parseInt(lower.slice(2), 16)
      : lower.startsWith("#")
        ? Number.parseInt(lower.slice(1), 10)
        : -1;
    if (code >= 0) return code <= 0x10ffff ? String.fromCodePoint(code) : "";
    return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[lower] ?? "";
  });
}
