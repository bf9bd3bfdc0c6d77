if (!(globalThis as any).DOMMatrix) {
  (globalThis as any).DOMMatrix = class DOMMatrix { a=1;b=0;c=0;d=1;e=0;f=0; constructor(_init?: unknown) {} };
}
import * as pdfjsWorker from "pdfjs-dist/legacy/build/pdf.worker.mjs";
(globalThis as any).pdfjsWorker = pdfjsWorker;
