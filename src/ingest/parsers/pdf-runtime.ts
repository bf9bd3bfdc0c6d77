import type { PDFParse } from "pdf-parse";

type Pdfjs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");
type PdfLibs = typeof import("./pdf-libs.lazy.ts");

let loaded: Promise<typeof PDFParse> | undefined;
let libs: PdfLibs | undefined;

/**
 * Loads pdf-parse on first use, after two shims that make it work inside a `bun build --compile` binary,
 * where pdf.js can neither `require("@napi-rs/canvas")` (for DOMMatrix) nor import its worker file from
 * disk. Text extraction never renders, so an inert DOMMatrix is enough; the worker module comes with pdf.js in
 * pdf-libs.lazy.ts (its own entry point in the binary, imported by URL so the bundler leaves it out of the main
 * bundle), and pdf.js picks it up from `globalThis.pdfjsWorker`.
 */
export function loadPdfParse(): Promise<typeof PDFParse> {
  loaded ??= (async () => {
    const g = globalThis as Record<string, unknown>;
    // Rendering pages for OCR needs the real DOMMatrix (and canvas) of @napi-rs/canvas; where that native
    // module can't load (the compiled binary), text extraction still works with the inert one below.
    g.DOMMatrix ??= await import("@napi-rs/canvas").then((c) => c.DOMMatrix).catch(() => undefined);
    g.DOMMatrix ??= class InertDOMMatrix {
      a = 1;
      b = 0;
      c = 0;
      d = 1;
      e = 0;
      f = 0;
    };
    libs = (await import(new URL("./pdf-libs.lazy.ts", import.meta.url).href)) as PdfLibs;
    g.pdfjsWorker ??= libs.pdfjsWorker;
    return libs.PDFParse;
  })();
  return loaded;
}

/** pdf.js itself (the copy pdf-parse wraps), behind the same shims: text items with their positions. */
export async function loadPdfjs(): Promise<Pdfjs> {
  await loadPdfParse();
  return (libs as PdfLibs).pdfjs;
}
