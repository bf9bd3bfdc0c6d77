import { clear, h } from "./dom.ts";

/** What the server sends the viewer (owner API or a visitor's signed link): see owner/citations.service.ts. */
export interface CiteData {
  kind: string;
  name: string;
  page: number | null;
  /** the last page the passage runs onto */
  page_end: number | null;
  pages: number | null;
  quote: string;
  cited_id: number;
  passages: {
    id: number;
    text: string;
    heading_path: string;
    page_start: number | null;
    row_start: number | null;
    row_end: number | null;
  }[];
  file_url: string | null;
  /** the PDF at file_url is the cited page alone (page 1 of it) rather than the whole document */
  single_page: boolean;
}

const norm = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

/**
 * Marks the text-layer spans that fall inside the quoted passage. The page's text is joined span by span; the
 * quote's longest prefix found in it (PDF text and indexed text differ in spacing and hyphenation) gives the range.
 */
export function highlightSpans(spans: HTMLElement[], quote: string): number {
  const parts = spans.map((s) => norm(s.textContent ?? ""));
  let text = "";
  const starts: number[] = [];
  for (const p of parts) {
    starts.push(text.length);
    text += `${p} `;
  }
  const q = norm(quote);
  let at = -1;
  let len = Math.min(q.length, 400);
  // the longest leading piece of the quote that the page contains (down to a few words)
  while (len >= 12) {
    at = text.indexOf(q.slice(0, len));
    if (at >= 0) break;
    len = Math.floor(len * 0.7);
  }
  if (at < 0) return 0;
  // extend to as much of the quote as follows on this page
  let end = at + len;
  while (end < text.length && end - at < q.length && text[end] === q[end - at]) end++;
  let marked = 0;
  spans.forEach((s, i) => {
    const from = starts[i] ?? 0;
    const to = from + (parts[i]?.length ?? 0);
    if (to > at && from < end && (parts[i]?.length ?? 0) > 0) {
      s.classList.add("hl");
      marked++;
    }
  });
  return marked;
}

type PdfJs = {
  GlobalWorkerOptions: { workerSrc: string };
  getDocument(src: { url: string; isEvalSupported: boolean; withCredentials?: boolean }): { promise: Promise<PdfDoc> };
  TextLayer: new (o: { textContentSource: unknown; container: HTMLElement; viewport: unknown }) => { render(): Promise<void> };
};
type PdfDoc = { numPages: number; getPage(n: number): Promise<PdfPage> };
type PdfPage = {
  getViewport(o: { scale: number }): { width: number; height: number; scale: number };
  render(o: { canvasContext: CanvasRenderingContext2D; viewport: unknown }): { promise: Promise<void> };
  streamTextContent(): unknown;
};

let pdfjs: Promise<PdfJs> | null = null;
/** pdf.js ships inside docchat (served from /viewer/): loaded on first use only. */
function loadPdfJs(): Promise<PdfJs> {
  // an address built at run time, so the bundler leaves the import to the browser
  const url = `${location.origin}/viewer/pdf.mjs`;
  pdfjs ??= (import(url) as Promise<PdfJs>).then((m) => {
    m.GlobalWorkerOptions.workerSrc = "/viewer/pdf.worker.mjs";
    return m;
  });
  return pdfjs;
}

async function renderPage(pdf: PdfDoc, lib: PdfJs, n: number, label: number, width: number): Promise<HTMLElement> {
  const page = await pdf.getPage(n);
  const base = page.getViewport({ scale: 1 });
  const viewport = page.getViewport({ scale: width / base.width });
  const canvas = h("canvas", { class: "pdf-canvas", "aria-hidden": "true" });
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${viewport.width}px`;
  canvas.style.height = `${viewport.height}px`;
  const layer = h("div", { class: "textLayer" });
  const sheet = h("div", { class: "pdf-page", "data-page": String(label), role: "img", "aria-label": `Page ${label}` }, canvas, layer);
  sheet.style.width = `${viewport.width}px`;
  sheet.style.height = `${viewport.height}px`;
  sheet.style.setProperty("--total-scale-factor", String(viewport.scale));
  const ctx = canvas.getContext("2d");
  if (ctx) {
    ctx.scale(ratio, ratio);
    await page.render({ canvasContext: ctx, viewport }).promise;
  }
  await new lib.TextLayer({ textContentSource: page.streamTextContent(), container: layer, viewport }).render();
  return sheet;
}

/** The cited page (or the few a passage runs across), the passage highlighted across them. */
async function renderPdf(box: HTMLElement, d: CiteData): Promise<void> {
  const lib = await loadPdfJs();
  const pdf = await lib.getDocument({ url: d.file_url ?? "", isEvalSupported: false, withCredentials: true }).promise;
  const first = d.page ?? 1;
  const last = Math.max(first, d.page_end ?? first);
  // a link's PDF holds the cited pages only, numbered from 1; the owner's holds the whole document
  const numbers = d.single_page
    ? Array.from({ length: pdf.numPages }, (_, i) => ({ n: i + 1, label: first + i }))
    : Array.from({ length: Math.min(last, pdf.numPages) - Math.min(first, pdf.numPages) + 1 }, (_, i) => ({
        n: Math.min(first, pdf.numPages) + i,
        label: Math.min(first, pdf.numPages) + i,
      }));
  const width = Math.min(900, box.clientWidth || 800);
  const sheets: HTMLElement[] = [];
  for (const { n, label } of numbers) sheets.push(await renderPage(pdf, lib, n, label, width));
  clear(box, sheets);
  const spans = sheets.flatMap((s) => [...s.querySelectorAll<HTMLElement>(".textLayer span:not(.markedContent)")]);
  const marked = highlightSpans(spans, d.quote);
  box.dataset.highlighted = String(marked);
  box.querySelector(".hl")?.scrollIntoView({ block: "center" });
}

function renderPassages(box: HTMLElement, d: CiteData): void {
  const where = (p: CiteData["passages"][number]) =>
    p.row_start !== null ? `Row ${p.row_start}${p.row_end !== null && p.row_end !== p.row_start ? `–${p.row_end}` : ""}` : p.heading_path;
  clear(
    box,
    h(
      "ol",
      { class: "passages" },
      d.passages.map((p) =>
        h(
          "li",
          { class: p.id === d.cited_id ? "passage cited" : "passage", "data-passage": String(p.id) },
          where(p) ? h("p", { class: "passage-where" }, where(p)) : null,
          p.id === d.cited_id ? h("mark", { class: "hl" }, p.text) : h("p", null, p.text),
        ),
      ),
    ),
  );
  box.querySelector(".cited")?.scrollIntoView({ block: "center" });
}

/** Renders a citation: the PDF page with the passage highlighted, or the CSV rows / text at the passage. */
export async function renderCitation(box: HTMLElement, d: CiteData): Promise<void> {
  if (d.kind === "pdf" && d.file_url) await renderPdf(box, d);
  else renderPassages(box, d);
}

export function citationLabel(c: {
  source: string;
  page_start: number | null;
  page_end?: number | null;
  row_start: number | null;
}): string {
  if (c.page_start !== null && c.page_end && c.page_end > c.page_start) return `${c.source}, pages ${c.page_start}–${c.page_end}`;
  if (c.page_start !== null) return `${c.source}, page ${c.page_start}`;
  if (c.row_start !== null) return `${c.source}, row ${c.row_start}`;
  return c.source;
}
