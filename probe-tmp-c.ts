import "./probe-tmp-poly.ts";
import { PDFParse } from "pdf-parse";
const bytes = new Uint8Array(await Bun.file(process.argv[2]!).arrayBuffer());
const p = new PDFParse({ data: bytes, isEvalSupported: false });
const r = await p.getText();
console.log(r.total, r.pages[0]!.text.slice(0, 60));
