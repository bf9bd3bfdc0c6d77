import { deflateSync } from "node:zlib";
import { loadPdfParse } from "../../../src/ingest/parsers/pdf-runtime.ts";

/**
 * A scan of a PDF: each page rendered by pdf.js at `dpi` and stored as a grey image (FlateDecode) on a page of
 * the same size, with no text layer: what a scanner or "print to image" produces. Deterministic.
 */
export async function scanPdf(pdf: Uint8Array, dpi = 200): Promise<Uint8Array> {
  const { createCanvas, loadImage } = await import("@napi-rs/canvas");
  const PDFParse = await loadPdfParse();
  const parser = new PDFParse({ data: pdf.slice() });
  const shots = await parser.getScreenshot({ scale: dpi / 72, imageDataUrl: false, imageBuffer: true });
  await parser.destroy();
  const pages: { w: number; h: number; grey: Buffer }[] = [];
  for (const shot of shots.pages) {
    const img = await loadImage(Buffer.from(shot.data));
    const ctx = createCanvas(img.width, img.height).getContext("2d");
    ctx.drawImage(img, 0, 0);
    const rgba = ctx.getImageData(0, 0, img.width, img.height).data;
    const grey = Buffer.alloc(img.width * img.height);
    for (let i = 0; i < grey.length; i++) grey[i] = Math.round(((rgba[i * 4] ?? 0) + (rgba[i * 4 + 1] ?? 0) + (rgba[i * 4 + 2] ?? 0)) / 3);
    pages.push({ w: img.width, h: img.height, grey: deflateSync(grey) });
  }
  const chunks: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const emit = (b: Buffer | string) => {
    const buf = typeof b === "string" ? Buffer.from(b, "latin1") : b;
    chunks.push(buf);
    length += buf.length;
  };
  const object = (id: number, body: string, stream?: Buffer) => {
    offsets[id] = length;
    emit(`${id} 0 obj\n${body}\n`);
    if (stream) {
      emit("stream\n");
      emit(stream);
      emit("\nendstream\n");
    }
    emit("endobj\n");
  };
  emit("%PDF-1.4\n");
  const kids = pages.map((_, i) => `${3 + i * 3} 0 R`).join(" ");
  object(1, "<< /Type /Catalog /Pages 2 0 R >>");
  object(2, `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  for (const [i, p] of pages.entries()) {
    const id = 3 + i * 3;
    const [wPt, hPt] = [(p.w * 72) / dpi, (p.h * 72) / dpi];
    const draw = Buffer.from(`q ${wPt.toFixed(2)} 0 0 ${hPt.toFixed(2)} 0 0 cm /Im0 Do Q`);
    object(id, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${wPt.toFixed(2)} ${hPt.toFixed(2)}] /Resources << /XObject << /Im0 ${id + 2} 0 R >> >> /Contents ${id + 1} 0 R >>`);
    object(id + 1, `<< /Length ${draw.length} >>`, draw);
    object(id + 2, `<< /Type /XObject /Subtype /Image /Width ${p.w} /Height ${p.h} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${p.grey.length} >>`, p.grey);
  }
  const xref = length;
  const count = 3 + pages.length * 3;
  emit(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (let id = 1; id < count; id++) emit(`${String(offsets[id]).padStart(10, "0")} 00000 n \n`);
  emit(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return new Uint8Array(Buffer.concat(chunks));
}
