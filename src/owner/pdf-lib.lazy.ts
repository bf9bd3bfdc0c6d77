/** pdf-lib and its fonts (~0.8 MB of code): a separate entry point of the compiled binary, loaded by pagesOf(). */
export { PDFDocument, PDFName } from "pdf-lib";
