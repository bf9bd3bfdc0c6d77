/**
 * pdf.js, its worker and pdf-parse: ~4 MB of code, a separate entry point of the compiled binary (see
 * scripts/build-binary.ts) so that a process that never reads a PDF (the server before its first upload) never loads
 * it. Import it only through loadPdfParse()/loadPdfjs() in pdf-runtime.ts, which set up its globals first.
 */
export * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs";
export * as pdfjsWorker from "pdfjs-dist/legacy/build/pdf.worker.mjs";
export { PDFParse } from "pdf-parse";
