import { describe, expect, test } from "bun:test";
import type { ErrorCode } from "../../src/errors/index.ts";
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from "../../src/ingest/chunk.ts";
import { csvParser, docxParser, pdfParser, txtParser } from "../../src/ingest/parsers/index.ts";
import type { ParsedDocument, Parser } from "../../src/ingest/types.ts";
import { expectAppError, fixtureDoc, sharedDoc, TEST_PARSE_OPTIONS } from "./helpers/docs.ts";

/** A file and what a parser must make of it: readable text containing `contains`, or an AppError code. */
interface Case {
  file: string;
  expect: "ok" | ErrorCode;
  contains?: string;
}

const ok = (file: string, contains?: string): Case => ({ file, expect: "ok", contains });
const fails = (file: string, code: ErrorCode): Case => ({ file, expect: code });

// "fixture:" files live in test/fixtures/docs; all others in ../shared/data/docs.
const suites: [Parser, Case[]][] = [
  [
    pdfParser,
    [
      ok("pdf/text/pdflatex-4-pages.pdf", "here is some text without a meaning"),
      ok("pdf/text/crazyones.pdf", "Heres to the crazy ones"),
      ok("pdf/text/federal-register-2020-17221.pdf", "Federal Register"),
      ok("pdf/text/multicolumn.pdf", "Two-Column Document"),
      ok("pdf/text/arabic-habibi.pdf", "habibi"),
      ok("pdf/tables/WARN-Report-for-7-1-2015-to-03-25-2016.pdf", "Notice Date"),
      ok("pdf/tables/nics-background-checks-2015-11.pdf", "Idaho"),
      ok("pdf/tables/senate-expenditures.pdf", "PAYEE NAME"),
      ok("pdf/encrypted/pypdf-r2-empty-password.pdf", "pdf encryption test"),
      ok("pdf/encrypted/pypdf-r6-empty-password.pdf", "pdf encryption test"),
      ok("pdf/scanned/Seige_of_Vicksburg_Sample_OCR.pdf", "VICKSBURG"),
      ok("pdf/malformed/pdfjs-helloworld-bad.pdf", "Hello, world!"),
      ok("pdf/malformed/pdfplumber-malformed-from-issue-932.pdf"),
      ok("pdf/derived-bad/tracemonkey-zeroed-blocks.pdf", "Trace-based Just-in-Time"),
      ok("fixture:three-pages.pdf", "Marker p2x1"),
      fails("pdf/encrypted/pypdf-r3-user-password.pdf", "document_encrypted"),
      fails("pdf/encrypted/pypdf-r4-aes-user-password.pdf", "document_encrypted"),
      fails("pdf/encrypted/pypdf-r6-both-passwords.pdf", "document_encrypted"),
      fails("pdf/encrypted/libreoffice-writer-password.pdf", "document_encrypted"),
      fails("pdf/encrypted/pdfplumber-password-example.pdf", "document_encrypted"),
      fails("pdf/encrypted/pdfjs-issue6010_1-password-abc.pdf", "document_encrypted"),
      fails("pdf/scanned/c02-22.pdf", "no_extractable_text"),
      fails("pdf/scanned/ccitt.pdf", "no_extractable_text"),
      fails("pdf/scanned/linn.pdf", "no_extractable_text"),
      fails("pdf/scanned/2400dpi.pdf", "no_extractable_text"),
      fails("pdf/scanned/vector-text-as-curves.pdf", "no_extractable_text"),
      fails("pdf/malformed/ocrmypdf-kcs-invalid-toc.pdf", "no_extractable_text"),
      fails("fixture:blank-page.pdf", "no_extractable_text"),
      fails("pdf/malformed/ocrmypdf-invalid.pdf", "document_unreadable"),
      fails("pdf/malformed/pdfplumber-empty.pdf", "document_unreadable"),
      fails("pdf/derived-bad/tracemonkey-truncated-4k.pdf", "document_unreadable"),
      fails("pdf/derived-bad/docx-renamed-as.pdf", "document_unreadable"),
    ],
  ],
  [
    docxParser,
    [
      ok("docx/mammoth/single-paragraph.docx", "Walking on imported air"),
      ok("docx/mammoth/tables.docx", "Top left | Top right"),
      ok("docx/mammoth/simple-list.docx", "- Apple\n- Banana"),
      ok("docx/mammoth/text-box.docx", "Datum plane"),
      ok("docx/mammoth/comments.docx", "Ouch."),
      ok("docx/mammoth/footnote-hyperlink.docx", "Example"),
      ok("docx/python-docx/test.docx", "python-docx was here"),
      ok("docx/python-docx/par-known-paragraphs.docx", "Heading Paragraph"),
      ok("docx/python-docx/tbl-cell-access.docx", "1 | 2 | 3"),
      ok("docx/python-docx/blk-paras-and-tables.docx", "Lorem ipsum dolor sit amet"),
      ok("docx/poi/61787.docx", "Personal Worldview Essay"),
      ok("docx/poi/Bug51170.docx", "ESTATUTOS DA ASSOCIAÇÃO"),
      ok("docx/poi/HeaderFooterUnicode.docx", "Molière"),
      ok("docx/poi/60329.docx", "Protocol No."),
      ok("docx/poi/bug59058.docx", "New Cases"),
      ok("docx/poi/bug65649.docx", "Комитет по информатизации и связи"),
      ok("docx/poi/drawing.docx", "МОНИТОРИНГ СМИ"),
      ok("docx/poi/form_footnotes.docx", "VISA APPLICATION FORM"),
      ok("fixture:structured.docx", "Zone | Price | Days"),
      fails("docx/mammoth/empty.docx", "no_extractable_text"),
      fails("docx/mammoth/external-picture.docx", "no_extractable_text"),
      fails("docx/python-docx/having-images.docx", "no_extractable_text"),
      fails("docx/encrypted/poi-bug53475-password-is-pass.docx", "document_encrypted"),
      fails("docx/encrypted/poi-bug53475-password-is-solrcell.docx", "document_encrypted"),
      fails("docx/malformed/mammoth-empty-zip.docx", "unsupported_document"),
      fails("docx/malformed/mammoth-hello-not-docx.zip.docx", "unsupported_document"),
      fails("docx/malformed/poi-clusterfuzz-5313273089884160.docx", "document_unreadable"),
      fails("docx/malformed/poi-truncated62886.docx", "document_unreadable"),
      fails("docx/derived-bad/IllustrativeCases-truncated-60pct.docx", "document_unreadable"),
      fails("docx/derived-bad/pdf-renamed-as.docx", "document_unreadable"),
    ],
  ],
  [
    csvParser,
    [
      ok("csv/csv-spectrum/comma_in_quotes.csv", "address: 120 any st.; city: Anytown, WW"),
      ok("csv/csv-spectrum/escaped_quotes.csv", 'b: ha "ha" ha'),
      ok("csv/csv-spectrum/newlines.csv", "a: Once upon a time; b: 5"),
      ok("csv/csv-spectrum/quotes_and_newlines.csv", 'b: ha "ha" ha'),
      ok("csv/csv-spectrum/utf8.csv", "c: ʤ"),
      ok("csv/csv-spectrum/location_coordinates.csv"),
      ok("csv/csv-spectrum/empty_crlf.csv"),
      ok("csv/clevercsv/airedale.csv"),
      ok("csv/clevercsv/imdb.csv", "title: Der Vagabund und das Kind (1921)"),
      ok("csv/csvkit/FY09_EDU_Recipients_by_State.csv"),
      ok("csv/csvkit/acs2012_5yr_population.csv", "name: Adams County, NE"),
      ok("csv/csvkit/dummy.tsv", "a: 1; b: 2; c: 3"),
      ok("csv/csvkit/mac_newlines.csv", "a: Once upon a time"),
      ok("csv/csvkit/test_header_newline.csv"),
      ok("csv/csvkit/test_latin1.csv", "©"),
      ok("csv/csvkit/test_utf16_big.csv", "a: 1; b: 2; c: 3"),
      ok("csv/csvkit/test_utf16_little.csv", "a: 1; b: 2; c: 3"),
      ok("csv/frictionless/blank-rows.csv", "name: John"),
      ok("csv/frictionless/bom.csv", "id: 1; name: english"),
      ok("csv/frictionless/delimiter.csv", "id: 1; name: english"),
      ok("csv/frictionless/doublequote.csv"),
      ok("csv/frictionless/issue-305.csv", "Belarus"),
      ok("csv/frictionless/issue-811.csv", "Torino"),
      ok("csv/frictionless/latin1.csv", "name: ©"),
      ok("csv/frictionless/table-with-accents.csv"),
      ok("csv/frictionless/table.tsv", "id: 1; name: english"),
      ok("csv/node-csv/265.tubs.csv", "Bain Ultra"),
      ok("csv/node-csv/365-utf16le-bom-windows.csv", "a: 1; b: 2; c: 3"),
      ok("csv/node-csv/411.csv", "first_name: Kylie"),
      ok("csv/node-csv/415.csv"),
      ok("csv/derived-bad/issue-305-truncated-inside-quote.csv", "Belarus"),
      ok("fixture:pipe-delimited.csv", "note: boils fast and quietly"),
      fails("csv/frictionless/empty.csv", "no_extractable_text"),
      fails("csv/csvkit/empty.csv", "no_extractable_text"),
      fails("csv/csvkit/null_byte.csv", "document_unreadable"),
      fails("csv/derived-bad/binary-renamed-as.csv", "document_unreadable"),
      fails("fixture:tiny.png", "document_unreadable"),
    ],
  ],
  [
    txtParser,
    [
      ok("txt/gutenberg-11-alice.txt", "Alice was beginning to get very tired"),
      ok("txt/gutenberg-1661-sherlock-holmes.txt", "To Sherlock Holmes she is always _the_ woman"),
      ok("txt/encodings/iso-8859-1___ude_1.txt"),
      ok("txt/encodings/utf-8___ude_he2.txt"),
      ok("txt/encodings/KOI8-R___ude_1.txt"),
      ok("txt/encodings/windows-1251-russian___ude_1.txt"),
      ok("txt/encodings/iso-8859-7-greek___ude_1.txt"),
      ok("txt/encodings/SHIFT_JIS___ude_4.txt"),
      ok("txt/derived-bad/alice-cut-mid-utf8-char.txt", "Alice’s Adventures in Wonderland"),
      ok("txt/derived-bad/alice-invalid-utf8-bytes.txt", "Alice’s Adventures in Wonderland"),
      ok("csv/csvkit/test_utf16_little.csv", "a,b,c 1,2,3"),
      ok("fixture:notes-utf16le.txt", "Aphids dislike garlic spray."),
      ok("fixture:notes-windows-1252.txt", "The café sign said “open” – every day"),
      ok("fixture:invisible-controls.txt", "Zerowidth joiner and a bell here."),
      ok("fixture:prose-with-commas.txt", "Well, here we are."),
      fails("csv/frictionless/empty.csv", "no_extractable_text"),
      fails("txt/derived-bad/pdf-renamed-as.txt", "document_unreadable"),
      fails("fixture:tiny.png", "document_unreadable"),
    ],
  ],
];

const load = (file: string) => (file.startsWith("fixture:") ? fixtureDoc(file.slice(8)) : sharedDoc(file));

/** What every successful parse owes its callers, whatever the format. */
function expectParserContract(parser: Parser, doc: ParsedDocument): void {
  expect(doc.kind).toBe(parser.kind);
  expect(doc.blocks.length).toBeGreaterThan(0);
  for (const block of doc.blocks) {
    expect(block.text.trim().length).toBeGreaterThan(0);
    expect(block.text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u200b\ufeff\ufffd]/);
    if (block.type === "heading") expect(block.level).toBeWithin(0, 7); // 0: the document title, above its sections
    if (doc.kind === "pdf") expect(block.page).toBeWithin(1, (doc.pages ?? 0) + 1);
  }
  if (doc.kind === "csv") {
    const rows = doc.blocks.flatMap((b) => (b.row === undefined ? [] : [b.row]));
    expect(rows).toEqual([...rows].sort((a, b) => a - b));
    expect(doc.header?.length).toBeGreaterThan(0);
  }
  // the isolated worker ships documents as JSON
  expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  const chunks = chunkDocument(doc, DEFAULT_CHUNK_OPTIONS);
  expect(chunks.length).toBeGreaterThan(0);
  for (const chunk of chunks) {
    // a CSV row is never cut, so one wider than the budget is a chunk of its own
    if (chunk.tokenCount > DEFAULT_CHUNK_OPTIONS.maxTokens) expect([doc.kind, chunk.rowStart]).toEqual(["csv", chunk.rowEnd]);
    else expect(chunk.tokenCount).toBeLessThanOrEqual(DEFAULT_CHUNK_OPTIONS.maxTokens);
  }
}

for (const [parser, cases] of suites) {
  describe(`the ${parser.kind} parser`, () => {
    for (const c of cases) {
      if (c.expect === "ok") {
        test(`reads ${c.file} into non-empty blocks${c.contains ? ` containing "${c.contains.slice(0, 40)}"` : ""}`, async () => {
          const doc = await parser.parse(await load(c.file), TEST_PARSE_OPTIONS);
          expectParserContract(parser, doc);
          // a boolean keeps a failure report short for book-length documents
          // the text a document indexes: its blocks and its card (a Gutenberg book's title is in its header)
          const texts = [...doc.blocks.map((b) => b.text), ...(doc.meta?.fields ?? []).map((f) => f.value)];
          if (c.contains) expect(texts.some((t) => t.includes(c.contains ?? ""))).toBe(true);
        });
      } else {
        const code = c.expect;
        test(`refuses ${c.file} with ${code}`, async () => {
          await expectAppError(parser.parse(await load(c.file), TEST_PARSE_OPTIONS), code);
        });
      }
    }
  });
}
