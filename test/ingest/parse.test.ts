import { describe, expect, test } from "bun:test";
import { normaliseInline, normaliseLines } from "../../src/ingest/normalise.ts";
import { DEFAULT_PARSE_OPTIONS, parseDocument } from "../../src/ingest/parse.ts";
import { expectAppError, fixtureDoc, sharedDoc } from "./helpers/docs.ts";

describe("parseDocument", () => {
  test("parses a file by what its bytes are, not by its misleading name", async () => {
    const pdf = await parseDocument(await sharedDoc("docx/derived-bad/pdf-renamed-as.docx"), {
      ...DEFAULT_PARSE_OPTIONS,
      filename: "report.docx",
    });
    expect(pdf.kind).toBe("pdf");
    expect(pdf.pages).toBe(4);
    const docx = await parseDocument(await sharedDoc("pdf/derived-bad/docx-renamed-as.pdf"), {
      ...DEFAULT_PARSE_OPTIONS,
      filename: "x.pdf",
    });
    expect(docx.blocks).toEqual([{ type: "paragraph", text: "Walking on imported air" }]);
  });

  test("reads the same comma-laden text as TXT or CSV depending only on the name", async () => {
    const bytes = await fixtureDoc("prose-with-commas.txt");
    expect((await parseDocument(bytes, { ...DEFAULT_PARSE_OPTIONS, filename: "a.txt" })).kind).toBe("txt");
    const csv = await parseDocument(bytes, { ...DEFAULT_PARSE_OPTIONS, filename: "a.csv" });
    expect(csv.kind).toBe("csv");
    expect(csv.header).toBe("Well | here we are.");
  });

  test("reports an empty upload as having no extractable text", async () => {
    await expectAppError(parseDocument(new Uint8Array(), { ...DEFAULT_PARSE_OPTIONS, filename: "empty.pdf" }), "no_extractable_text");
  });

  test("refuses a legacy binary Word file (CFB without an encrypted package) as unsupported", async () => {
    const cfb = new Uint8Array(1024);
    cfb.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    await expectAppError(parseDocument(cfb, { ...DEFAULT_PARSE_OPTIONS, filename: "old.doc" }), "unsupported_document");
  });
});

describe("normalise", () => {
  test("collapses whitespace, including no-break spaces, and drops bidi and zero-width marks", () => {
    expect(normaliseInline("  a\u00a0\u00a0b\u200e\u200b c\t\n d  ")).toBe("a b c d");
  });

  test("keeps line structure for tables and lists while dropping empty lines", () => {
    expect(normaliseLines("a  |  b\r\n\r\n  c | d  \r")).toBe("a | b\nc | d");
  });
});
