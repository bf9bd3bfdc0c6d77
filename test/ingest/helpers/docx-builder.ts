import { writeZip, type ZipFile } from "./zip-writer.ts";

const W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

export type DocxPart =
  | { heading: 1 | 2 | 3; text: string }
  | { paragraph: string }
  | { bullets: string[] }
  | { numbered: string[] }
  | { table: string[][] };

/** A minimal but valid DOCX (styles for headings, numbering for lists) built from a list of parts. */
export function buildDocx(parts: DocxPart[], extraFiles: ZipFile[] = []): Uint8Array {
  return writeZip([
    { name: "[Content_Types].xml", data: CONTENT_TYPES },
    { name: "_rels/.rels", data: rels([["officeDocument", "word/document.xml"]]) },
    {
      name: "word/_rels/document.xml.rels",
      data: rels([
        ["styles", "styles.xml"],
        ["numbering", "numbering.xml"],
      ]),
    },
    { name: "word/styles.xml", data: STYLES },
    { name: "word/numbering.xml", data: NUMBERING },
    { name: "word/document.xml", data: documentXml(parts) },
    ...extraFiles,
  ]);
}

export function documentXml(parts: DocxPart[]): string {
  const body = parts.map(partXml).join("");
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`;
}

function partXml(part: DocxPart): string {
  if ("heading" in part) return para(part.text, `<w:pStyle w:val="Heading${part.heading}"/>`);
  if ("paragraph" in part) return para(part.paragraph);
  if ("bullets" in part) return part.bullets.map((t) => para(t, numPr(1))).join("");
  if ("numbered" in part) return part.numbered.map((t) => para(t, numPr(2))).join("");
  const rows = part.table.map((r) => `<w:tr>${r.map((c) => `<w:tc>${para(c)}</w:tc>`).join("")}</w:tr>`);
  return `<w:tbl>${rows.join("")}</w:tbl>`;
}

function para(text: string, pPr = ""): string {
  return `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ""}<w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`;
}

function numPr(numId: number): string {
  return `<w:numPr><w:ilvl w:val="0"/><w:numId w:val="${numId}"/></w:numPr>`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function rels(list: [string, string][]): string {
  const items = list.map(([type, target], i) => `<Relationship Id="rId${i + 1}" Type="${REL}/${type}" Target="${target}"/>`);
  return `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items.join("")}</Relationships>`;
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/></Types>`;

const STYLES = `<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="${W}">${[1, 2, 3]
  .map((n) => `<w:style w:type="paragraph" w:styleId="Heading${n}"><w:name w:val="heading ${n}"/></w:style>`)
  .join("")}</w:styles>`;

const NUMBERING = `<?xml version="1.0" encoding="UTF-8"?><w:numbering xmlns:w="${W}"><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum><w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num></w:numbering>`;
