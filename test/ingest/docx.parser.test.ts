import { describe, expect, test } from "bun:test";
import { docxParser } from "../../src/ingest/parsers/docx.parser.ts";
import { htmlToBlocks } from "../../src/ingest/parsers/docx-html.ts";
import { expectAppError, fixtureDoc, TEST_PARSE_OPTIONS } from "./helpers/docs.ts";
import { buildDocx } from "./helpers/docx-builder.ts";
import { writeZip } from "./helpers/zip-writer.ts";

const MB = 1024 * 1024;

describe("the DOCX parser", () => {
  test("keeps headings with their levels, lists as marked lines and tables as cell | cell rows", async () => {
    const doc = await docxParser.parse(await fixtureDoc("structured.docx"), TEST_PARSE_OPTIONS);
    expect(doc.blocks).toEqual([
      { type: "heading", text: "Shipping policy", level: 1 },
      { type: "paragraph", text: "Orders placed before noon leave the warehouse the same day." },
      { type: "heading", text: "Rates", level: 2 },
      { type: "table", text: "Zone | Price | Days\nDomestic | 4.90 EUR | 2\nEurope | 9.90 EUR | 5\nWorld | 19.90 EUR | 10" },
      { type: "list", text: "- Tracking is included\n- Insurance up to 500 EUR" },
      { type: "heading", text: "Returns", level: 2 },
      { type: "list", text: "1. Open a return request\n2. Print the label\n3. Drop the parcel off" },
      { type: "paragraph", text: "Refunds are issued within 14 days of receipt." },
    ]);
  });

  test("stops a zip bomb by counting inflated bytes, even when the headers declare a tiny size", async () => {
    const filler = new Uint8Array(64 * MB).fill(0x20);
    const bomb = buildDocx([{ paragraph: "hello" }], [{ name: "word/media/filler.bin", data: filler, declaredSize: 10 }]);
    expect(bomb.byteLength).toBeLessThan(200 * 1024);
    await expectAppError(docxParser.parse(bomb, { ...TEST_PARSE_OPTIONS, maxInflatedBytes: 8 * MB }), "payload_too_large");
  });

  test("counts inflated bytes across all entries, not per entry", async () => {
    const parts = Array.from({ length: 6 }, (_, i) => ({ name: `word/media/part${i}.bin`, data: new Uint8Array(2 * MB) }));
    const docx = buildDocx([{ paragraph: "hello" }], parts);
    await expectAppError(docxParser.parse(docx, { ...TEST_PARSE_OPTIONS, maxInflatedBytes: 8 * MB }), "payload_too_large");
    const doc = await docxParser.parse(docx, { ...TEST_PARSE_OPTIONS, maxInflatedBytes: 16 * MB });
    expect(doc.blocks).toEqual([{ type: "paragraph", text: "hello" }]);
  });

  test("refuses XML parts that declare a DTD, so no entity can expand or load an external file", async () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY x SYSTEM "file:///etc/passwd">]><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&x;</w:t></w:r></w:p></w:body></w:document>`;
    const files = [
      { name: "[Content_Types].xml", data: "<Types/>" },
      { name: "word/document.xml", data: xxe },
    ];
    await expectAppError(docxParser.parse(writeZip(files), TEST_PARSE_OPTIONS), "document_unreadable");
  });

  test("refuses a ZIP entry flagged as encrypted with document_encrypted", async () => {
    const zip = buildDocx([{ paragraph: "secret" }]);
    // set the "encrypted" general-purpose flag bit in the first central directory record
    const view = new DataView(zip.buffer);
    const central = zip.findIndex((_, i) => view.getUint32(i, true) === 0x02014b50);
    view.setUint16(central + 8, 1, true);
    await expectAppError(docxParser.parse(zip, TEST_PARSE_OPTIONS), "document_encrypted");
  });
});

describe("htmlToBlocks", () => {
  test("indents nested list items under their parent item", () => {
    const blocks = htmlToBlocks("<ol><li>One<ul><li>Inner</li></ul></li><li>Two</li></ol>");
    expect(blocks).toEqual([{ type: "list", text: "1. One\n  - Inner\n2. Two" }]);
  });

  test("flattens a table nested in a cell into that cell's text", () => {
    const blocks = htmlToBlocks("<table><tr><td><p>Outer</p><table><tr><td>a</td><td>b</td></tr></table></td><td>c</td></tr></table>");
    expect(blocks).toEqual([{ type: "table", text: "Outer a | b | c" }]);
  });

  test("drops footnote markers and back-links but keeps the footnote text and decodes entities", () => {
    const html = `<p>Fish &amp; chips<sup><a href="#footnote-1" id="footnote-ref-1">[1]</a></sup></p><ol><li id="footnote-1"><p>Served hot. <a href="#footnote-ref-1">↑</a></p></li></ol>`;
    expect(htmlToBlocks(html)).toEqual([
      { type: "paragraph", text: "Fish & chips" },
      { type: "list", text: "1. Served hot." },
    ]);
  });
});
