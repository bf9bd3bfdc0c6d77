/**
 * The parse worker's code (parsers, chunking, the pdf.js and OCR loaders): a separate entry point of the compiled
 * binary, loaded only in the `__parse-worker` child, so the bundle every start (the server's too) loads stays without it.
 */
export { runParseWorker } from "../../ingest/parse-worker.ts";
