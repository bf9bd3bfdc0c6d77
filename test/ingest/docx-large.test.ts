import { describe, expect, test } from "bun:test";
import { docxParser } from "../../src/ingest/parsers/docx.parser.ts";
import { docxXmlToBlocks, entryText, headingStyles, LARGE_DOCX_XML_BYTES, numberedLevels } from "../../src/ingest/parsers/docx-xml.ts";
import { listZipEntries } from "../../src/ingest/zip-reader.ts";
import { fixtureDoc, TEST_PARSE_OPTIONS } from "./helpers/docs.ts";
import { buildDocx } from "./helpers/docx-builder.ts";

/** The blocks the XML reader makes of a DOCX (what the parser uses above LARGE_DOCX_XML_BYTES). */
function xmlBlocks(bytes: Uint8Array) {
  const entries = listZipEntries(bytes);
  const part = (name: string) => {
    const e = entries.find((x) => x.name === name);
    return e ? entryText(bytes, e) : "";
  };
  return docxXmlToBlocks(part("word/document.xml"), headingStyles(part("word/styles.xml")), numberedLevels(part("word/numbering.xml")));
}

describe("large DOCX documents, read from their XML (N10)", () => {
  test("the XML reader makes the same blocks as mammoth of headings, paragraphs, tables, bullets and numbered lists", async () => {
    const bytes = await fixtureDoc("structured.docx");
    expect(xmlBlocks(bytes)).toEqual((await docxParser.parse(bytes, TEST_PARSE_OPTIONS)).blocks);
  });

  test("past LARGE_DOCX_XML_BYTES the parser reads the XML itself, every paragraph kept", async () => {
    const paragraphs = Array.from({ length: 90_000 }, (_, i) => ({
      paragraph: `Paragraph ${i}: the ferry to island ${i} leaves at noon.`,
    }));
    const bytes = buildDocx([{ heading: 1, text: "Timetable" }, ...paragraphs]);
    expect(listZipEntries(bytes).find((e) => e.name === "word/document.xml")?.uncompressedSize).toBeGreaterThan(LARGE_DOCX_XML_BYTES);
    const doc = await docxParser.parse(bytes, TEST_PARSE_OPTIONS);
    expect(doc.blocks[0]).toEqual({ type: "heading", text: "Timetable", level: 1 });
    expect(doc.blocks).toHaveLength(90_001);
    expect(doc.blocks.at(-1)?.text).toBe("Paragraph 89999: the ferry to island 89999 leaves at noon.");
  }, 60_000);

  test("deleted runs and field codes are left out; entities and tabs are read", () => {
    const xml =
      "<w:document><w:body><w:p><w:r><w:t>Fish &amp; chips</w:t></w:r><w:r><w:tab/><w:t>&#x20AC;5</w:t></w:r>" +
      "<w:del><w:r><w:delText>gone</w:delText><w:t>gone</w:t></w:r></w:del>" +
      '<w:r><w:instrText xml:space="preserve"> PAGE </w:instrText></w:r></w:p></w:body></w:document>';
    expect(docxXmlToBlocks(xml, new Map())).toEqual([{ type: "paragraph", text: "Fish & chips €5" }]);
  });
});
