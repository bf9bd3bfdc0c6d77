import { PDFDocument, StandardFonts } from "pdf-lib";

/** A three-page PDF whose second page holds the lighthouse passage: each page a full page of its own words. */
export const HARBOUR_PAGES = [
  "Harbour guide. The harbour opens at dawn and the ferry leaves every hour from pier one.",
  "Lighthouse keepers. The lighthouse was built in 1871 by the engineer Margaret Holloway and restored in 1994.",
  "Fish market. The fish market sells the morning catch from six until noon on weekdays.",
];

export async function harbourPdf(): Promise<Uint8Array<ArrayBuffer>> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const [n, text] of HARBOUR_PAGES.entries()) {
    const page = pdf.addPage([595, 842]);
    const topic = ["quay", "beacon", "stall"][n] as string;
    const lines = [text, ...Array.from({ length: 40 }, (_, i) => `The ${topic} board ${i + 1} lists ${topic} notices for the season.`)];
    const words = lines.join(" ").split(" ");
    for (let i = 0, y = 800; i < words.length && y > 40; i += 11, y -= 15)
      page.drawText(words.slice(i, i + 11).join(" "), { x: 40, y, size: 10, font });
  }
  return (await pdf.save()) as Uint8Array<ArrayBuffer>;
}
