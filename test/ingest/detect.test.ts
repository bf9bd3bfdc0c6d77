import { describe, expect, test } from "bun:test";
import { detectKind } from "../../src/ingest/detect.ts";
import type { DocumentKind } from "../../src/ingest/types.ts";
import { expectAppError, fixtureDoc, sharedDoc } from "./helpers/docs.ts";
import { writeZip } from "./helpers/zip-writer.ts";

const text = (s: string) => new TextEncoder().encode(s);

describe("detectKind", () => {
  const byContent: [string, DocumentKind][] = [
    ["pdf/text/crazyones.pdf", "pdf"],
    ["docx/mammoth/tables.docx", "docx"],
    ["csv/frictionless/delimiter.csv", "csv"],
    ["csv/csvkit/test_utf16_big.csv", "csv"],
    ["csv/node-csv/365-utf16le-bom-windows.csv", "csv"],
    ["csv/csvkit/mac_newlines.csv", "csv"],
    ["txt/gutenberg-11-alice.txt", "txt"],
    ["txt/encodings/iso-8859-1___ude_1.txt", "txt"],
    // the name lies, the bytes win
    ["pdf/derived-bad/docx-renamed-as.pdf", "docx"],
    ["docx/derived-bad/pdf-renamed-as.docx", "pdf"],
    ["txt/derived-bad/pdf-renamed-as.txt", "pdf"],
    ["csv/derived-bad/binary-renamed-as.csv", "pdf"],
    // an encrypted DOCX is a CFB container; the DOCX parser then reports it as encrypted
    ["docx/encrypted/poi-bug53475-password-is-pass.docx", "docx"],
    // a truncated DOCX lost its central directory, but its local headers still name word/ parts
    ["docx/derived-bad/IllustrativeCases-truncated-60pct.docx", "docx"],
  ];
  for (const [file, kind] of byContent) {
    test(`sniffs ${file} as ${kind} from its bytes, whatever its name says`, async () => {
      expect(detectKind(await sharedDoc(file), file)).toBe(kind);
    });
  }

  test("finds a %PDF- header after leading junk within the first kilobyte, as pdf.js does", () => {
    expect(detectKind(text(`${"x".repeat(500)}%PDF-1.4\n`))).toBe("pdf");
    expect(detectKind(text(`${"x".repeat(1100)}%PDF-1.4\n`))).toBe("txt");
  });

  test("refuses a ZIP that is not a DOCX as unsupported", async () => {
    await expectAppError(async () => detectKind(await sharedDoc("docx/malformed/mammoth-hello-not-docx.zip.docx")), "unsupported_document");
    await expectAppError(async () => detectKind(await sharedDoc("docx/malformed/mammoth-empty-zip.docx")), "unsupported_document");
    await expectAppError(() => detectKind(writeZip([{ name: "xl/workbook.xml", data: "<workbook/>" }])), "unsupported_document");
  });

  test("refuses images, executables and NUL-laden bytes even when named .csv or .txt", async () => {
    await expectAppError(async () => detectKind(await fixtureDoc("tiny.png"), "prices.csv"), "unsupported_document");
    await expectAppError(() => detectKind(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), "notes.txt"), "unsupported_document");
    await expectAppError(async () => detectKind(await sharedDoc("csv/csvkit/null_byte.csv"), "null_byte.csv"), "unsupported_document");
    const garbage = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256);
    await expectAppError(() => detectKind(garbage, "data.csv"), "unsupported_document");
  });

  test("uses the file name only to break a TXT-versus-CSV tie", async () => {
    const prose = await fixtureDoc("prose-with-commas.txt");
    expect(detectKind(prose, "prose-with-commas.txt")).toBe("txt");
    expect(detectKind(prose, "prose-with-commas.csv")).toBe("csv");
    // ragged rows are not consistent enough on their own, but a .csv name settles it
    const ragged = await sharedDoc("csv/node-csv/411.csv");
    expect(detectKind(ragged, "411.csv")).toBe("csv");
    expect(detectKind(ragged)).toBe("txt");
    expect(detectKind(text("Just one line of plain prose.\nAnd another one here.\n"), "x.csv")).toBe("txt");
  });

  test("treats an empty upload as empty text, so the TXT parser reports no text", () => {
    expect(detectKind(new Uint8Array())).toBe("txt");
  });
});
