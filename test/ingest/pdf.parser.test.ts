import { describe, expect, test } from "bun:test";
import { pdfParser } from "../../src/ingest/parsers/pdf.parser.ts";
import { pageTextToParagraphs } from "../../src/ingest/parsers/pdf-paragraphs.ts";
import { expectAppError, fixtureDoc, sharedDoc, TEST_PARSE_OPTIONS } from "./helpers/docs.ts";
import { writePdf } from "./helpers/pdf-writer.ts";

describe("the PDF parser", () => {
  test("keeps the page number of every paragraph and splits paragraphs at their short last line", async () => {
    const doc = await pdfParser.parse(await fixtureDoc("three-pages.pdf"), TEST_PARSE_OPTIONS);
    expect(doc.pages).toBe(3);
    expect(doc.blocks.map((b) => [b.page, b.text.match(/Marker (p\dx\d)/)?.[1]])).toEqual([
      [1, "p1x1"],
      [1, "p1x2"],
      [2, "p2x1"],
      [2, "p2x2"],
      [3, "p3x1"],
      [3, "p3x2"],
    ]);
    expect(doc.blocks[0]?.text).toEndWith("coast guard office. Marker p1x1. That is all for today.");
  });

  test("numbers the pages of a real multi-page PDF from 1 to its page count", async () => {
    const doc = await pdfParser.parse(await sharedDoc("pdf/text/federal-register-2020-17221.pdf"), TEST_PARSE_OPTIONS);
    expect(doc.pages).toBe(15);
    const pages = new Set(doc.blocks.map((b) => b.page));
    expect([...pages].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
  });

  test("refuses a PDF with more pages than the cap before reading them", async () => {
    const bytes = await fixtureDoc("three-pages.pdf");
    await expectAppError(pdfParser.parse(bytes, { ...TEST_PARSE_OPTIONS, maxPages: 2 }), "payload_too_large");
    const doc = await pdfParser.parse(bytes, { ...TEST_PARSE_OPTIONS, maxPages: 3 });
    expect(doc.pages).toBe(3);
  });

  test("reads a PDF whose header follows leading junk", async () => {
    const pdf = writePdf([{ lines: ["Leading junk does not hide this line."] }]);
    const junk = new TextEncoder().encode("garbage before the header\n");
    const bytes = new Uint8Array([...junk, ...pdf]);
    const doc = await pdfParser.parse(bytes, TEST_PARSE_OPTIONS);
    expect(doc.blocks.map((b) => b.text)).toEqual(["Leading junk does not hide this line."]);
  });

  test("leaves the caller's bytes intact, since pdf.js may detach what it is given", async () => {
    const bytes = await fixtureDoc("three-pages.pdf");
    const before = bytes.byteLength;
    await pdfParser.parse(bytes, TEST_PARSE_OPTIONS);
    expect(bytes.byteLength).toBe(before);
  });

  test("refuses a zero-byte file as unreadable", async () => {
    await expectAppError(pdfParser.parse(new Uint8Array(), TEST_PARSE_OPTIONS), "document_unreadable");
  });
});

describe("pageTextToParagraphs", () => {
  test("rejoins words hyphenated across a line break", () => {
    const text = "The lighthouse keeper kept a careful and accu-\nrate record of every ship that passed the point.\nShort end.";
    expect(pageTextToParagraphs(text)).toEqual([
      "The lighthouse keeper kept a careful and accurate record of every ship that passed the point. Short end.",
    ]);
  });

  test("starts a new paragraph after a blank line", () => {
    expect(pageTextToParagraphs("First block.\n\nSecond block.")).toEqual(["First block.", "Second block."]);
  });
});
