import { describe, expect, test } from "bun:test";
import { parseDocument } from "../../src/ingest/parse.ts";
import { pdfParser } from "../../src/ingest/parsers/pdf.parser.ts";
import { pageTextToParagraphs } from "../../src/ingest/parsers/pdf-paragraphs.ts";
import { documentVocabulary, normalisePdfCharacters } from "../../src/ingest/parsers/pdf-text.ts";
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

describe("PDF text artefacts", () => {
  test("never reach the blocks of a real manual: minus signs, small tildes and broken words are mended", async () => {
    const parsed = await parseDocument(await sharedDoc("pdf/text/debian-bash-doc-bash.pdf"), TEST_PARSE_OPTIONS);
    const text = parsed.blocks.map((b) => b.text).join("\n");
    expect(text).not.toMatch(/[\u2212\u02dc\u00ad\ufb00-\ufb06]/);
    expect(text).toContain("--login");
    expect(text).toContain("~/.bash_logout");
    // "EVALUA- TION" and "LC_MES- SAGES" came from words broken across lines of a justified column
    expect(text).not.toMatch(/EVALUA- ?TION|LC_MES- ?SAGES/);
    expect(text).toContain("LC_MESSAGES");
    // a suspended compound keeps its hyphen and space
    expect(text).toContain("meta- and");
  });

  test("join a line-end hyphen by the document's own spelling, else as hyphenation or as a compound", () => {
    const vocab = documentVocabulary(["SunSpider is fast", "a state-of-the-art e-mail"]);
    expect(pageTextToParagraphs("We ran Sun-\nSpider twice.", vocab)).toEqual(["We ran SunSpider twice."]);
    expect(pageTextToParagraphs("We ran Sun- Spider twice.", vocab)).toEqual(["We ran SunSpider twice."]);
    expect(pageTextToParagraphs("A state-of-the-\nart design.", vocab)).toEqual(["A state-of-the-art design."]);
    expect(pageTextToParagraphs("Send an e-\nmail now.", vocab)).toEqual(["Send an e-mail now."]);
    expect(pageTextToParagraphs("The FAA-\napproved part.", vocab)).toEqual(["The FAA-approved part."]);
    expect(pageTextToParagraphs("pre- and post-processing", vocab)).toEqual(["pre- and post-processing"]);
    expect(pageTextToParagraphs("an accu-\nrate record", vocab)).toEqual(["an accurate record"]);
  });

  test("replace ligature glyphs, typographic minus and tilde, and drop soft hyphens", () => {
    expect(normalisePdfCharacters("ﬁle ﬂow eﬀort oﬃce")).toBe("file flow effort office");
    expect(normalisePdfCharacters("bash \u2212\u2212login \u02dc/.bashrc")).toBe("bash --login ~/.bashrc");
    expect(pageTextToParagraphs("hyphen\u00ad\nation and soft\u00adhyphen")).toEqual(["hyphenation and softhyphen"]);
  });
});
