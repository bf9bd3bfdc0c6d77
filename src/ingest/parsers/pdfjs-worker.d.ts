// pdfjs-dist ships no declaration for its worker bundle; only its presence matters here.
declare module "pdfjs-dist/legacy/build/pdf.worker.mjs" {
  export const WorkerMessageHandler: unknown;
}
