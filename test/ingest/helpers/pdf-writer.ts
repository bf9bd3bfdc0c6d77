/**
 * One page: lines of ASCII text (Helvetica 11, top down), or none for an image-only look-alike (a filled box);
 * or text drawn at given positions (PDF points from the bottom left), in the order given.
 */
export type PdfPage = { lines: string[] } | { placed: { x: number; y: number; text: string }[] };

/** Writes a small uncompressed PDF 1.4 with a correct xref table; deterministic output. */
export function writePdf(pages: PdfPage[]): Uint8Array {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  const pageIds = pages.map((_, i) => 4 + i * 2);
  add("<< /Type /Catalog /Pages 2 0 R >>");
  add(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pages.length} >>`);
  add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  for (const [i, page] of pages.entries()) {
    const stream = contentStream(page);
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageIds[i]! + 1} 0 R >>`);
    add(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  }
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

function contentStream(page: PdfPage): string {
  if ("placed" in page)
    return `BT /F1 11 Tf\n${page.placed.map((p) => `1 0 0 1 ${p.x} ${p.y} Tm (${escapePdf(p.text)}) Tj`).join("\n")}\nET`;
  if (page.lines.length === 0) return "0.2 0.2 0.2 rg 72 300 468 400 re f";
  const body = page.lines.map((l, i) => `${i === 0 ? "" : "T* "}(${escapePdf(l)}) Tj`).join("\n");
  return `BT /F1 11 Tf 14 TL 72 720 Td\n${body}\nET`;
}

function escapePdf(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`);
}
