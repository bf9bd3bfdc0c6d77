import type { Fragment } from "./pdf-fragments.ts";
import { type Line, toLines } from "./pdf-lines.ts";

/** A running header or footer line as first printed, page numbers left out. */
export interface RunningLine {
  text: string;
  top: boolean;
}

/** A page's fragments before reading order is decided. */
export interface PageFragments {
  num: number;
  width: number;
  height: number;
  frags: Fragment[];
}

/** Running headers and footers live in this share of the page's height at its top and bottom. */
const MARGIN = 0.2;
/** At most this many lines at each end of a page can be running headers or footers. */
const MARGIN_LINES = 3;
/** A line repeated on at least this share of the pages (and on three of them) runs on every page. */
const REPEATED = 0.4;
const PAGE_NUMBER = /^(?:page\s*)?#(?:\s*(?:of|\/)\s*#)?$|^[-–—]\s*#\s*[-–—]$|^[ivxlc]{1,6}$/i;

/** Digits differ from page to page ("47703", "Frm 00006"); the words around them do not. */
const keyOf = (text: string) => text.toLowerCase().replace(/\d+/g, "#").replace(/\s+/g, " ").trim();

/**
 * Removes running headers, footers and page numbers from every page and returns the first occurrence of each
 * header or footer line (page numbers left out), in page order. With fewer than three pages nothing repeats;
 * there a short, centred, smaller line at the very top or bottom of a page is taken for one.
 */
export function stripFurniture(pages: PageFragments[]): RunningLine[] {
  const margins = pages.map((p) => marginLines(p));
  const counts = new Map<string, number>();
  for (const { top, bottom } of margins) {
    const keys = new Set([...top, ...bottom].flatMap((l) => l.frags.map((f) => keyOf(f.text))));
    for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const minPages = Math.max(3, Math.ceil(REPEATED * pages.length));
  const repeated = (f: Fragment) => (counts.get(keyOf(f.text)) ?? 0) >= minPages;
  const numbers = (line: Line) => line.frags.filter((f) => PAGE_NUMBER.test(keyOf(f.text)));
  // a book's header names the chapter it is in ("7 1.2. METRISCHE RÄUME"): its words change, but the page number
  // beside them sits at the same height on most pages
  const numbered = new Map<number, number>();
  for (const { top, bottom } of margins)
    for (const y of new Set([...top, ...bottom].filter((l) => numbers(l).length > 0).map((l) => Math.round(l.y))))
      numbered.set(y, (numbered.get(y) ?? 0) + 1);
  const numberedRow = (line: Line) => numbers(line).length > 0 && (numbered.get(Math.round(line.y)) ?? 0) >= minPages;
  const headerLines: RunningLine[] = [];
  const seen = new Set<string>();
  pages.forEach((page, i) => {
    const running = (line: Line) =>
      pages.length >= 3
        ? line.frags.every((f) => repeated(f) || numbers(line).includes(f)) || numberedRow(line)
        : numbers(line).length === line.frags.length || looksLikeRunningLine(line, page);
    const { top, bottom, lines } = margins[i] ?? { top: [], bottom: [], lines: [] };
    const drop = new Set<Fragment>();
    for (const edge of [top, bottom]) {
      // from the edge of the page inwards: a running line never has body text between it and the edge, and
      // white space sets it apart from the text (lines that merely repeat from page to page are not enough)
      const run: Line[] = [];
      for (const line of edge) {
        if (!running(line)) break;
        run.push(line);
      }
      while (pages.length >= 3 && run.length > 0 && !setApart(run.at(-1) as Line, lines, edge === top)) run.pop();
      for (const line of run) {
        for (const f of line.frags) drop.add(f);
        const text = line.frags
          .filter((f) => !numbers(line).includes(f))
          .map((f) => f.text)
          .join(" ");
        const key = keyOf(text);
        // the card keeps what runs on every page, not each chapter's name
        const steady = pages.length < 3 || line.frags.every((f) => repeated(f) || numbers(line).includes(f));
        if (text && steady && !seen.has(key)) {
          seen.add(key);
          headerLines.push({ text, top: edge === top });
        }
      }
    }
    if (drop.size > 0) page.frags = page.frags.filter((f) => !drop.has(f));
  });
  return headerLines;
}

/** Further from the next line towards the page's middle than the page's lines usually are from each other. */
function setApart(line: Line, lines: Line[], fromTop: boolean): boolean {
  const i = lines.indexOf(line);
  const inner = lines[fromTop ? i + 1 : i - 1];
  if (!inner) return true;
  const steps = lines
    .slice(1)
    .map((l, k) => l.y - (lines[k] as Line).y)
    .sort((a, b) => a - b);
  // a page of figures has few lines far apart: their spacing is no line spacing
  const pitch = Math.min(steps[Math.floor(steps.length / 2)] ?? line.size, 2 * line.size);
  return Math.abs(inner.y - line.y) >= 1.4 * Math.max(pitch, line.size);
}

/** The first and last few lines of a page (the last ones from the bottom up), when they sit in its margins. */
function marginLines(page: PageFragments): { top: Line[]; bottom: Line[]; lines: Line[] } {
  const lines = toLines(page.frags);
  const top = lines.slice(0, MARGIN_LINES).filter((l) => l.y <= page.height * MARGIN);
  const bottom = lines
    .slice(-MARGIN_LINES)
    .reverse()
    .filter((l) => l.y >= page.height * (1 - MARGIN) && !top.includes(l));
  // a table's column header repeated at the top of each page is not a running header: its cells sit over the
  // cells of the row below
  const over = (l: Line, below: Line | undefined) =>
    !!below && l.frags.every((f) => below.frags.some((g) => g.x < f.right && g.right > f.x));
  const header = top.findIndex((l, i) => l.frags.length >= 3 && (lines[i + 1]?.frags.length ?? 0) >= 3 && over(l, lines[i + 1]));
  return { top: header >= 0 ? top.slice(0, header) : top, bottom, lines };
}

/** Single-page documents: "Official - Subject to Final Review" centred above the text in a smaller type. */
function looksLikeRunningLine(line: Line, page: PageFragments): boolean {
  const sizes = page.frags.map((f) => f.size).sort((a, b) => a - b);
  const body = sizes[Math.floor(sizes.length / 2)] ?? line.size;
  const centre = (line.x + line.right) / 2;
  const words = line.frags
    .map((f) => f.text)
    .join(" ")
    .split(/\s+/).length;
  return (
    line.size < body * 0.95 &&
    Math.abs(centre - page.width / 2) < page.width * 0.05 &&
    words <= 8 &&
    (line.y <= page.height * 0.1 || line.y >= page.height * 0.9)
  );
}
