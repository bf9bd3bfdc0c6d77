/**
 * The parse worker's code (parsers, chunking, the analyzer, the pdf.js and OCR loaders): a separate entry point of
 * the compiled binary, loaded only in the `__parse-worker` child, so the bundle every start (the server's too) loads
 * stays without it. The server's worker analyzes small documents' chunks too (documents/prepare-worker.ts).
 */
export { runPrepareWorker as runParseWorker } from "../../documents/prepare-worker.ts";
