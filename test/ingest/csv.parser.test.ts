import { describe, expect, test } from "bun:test";
import { normaliseInline } from "../../src/ingest/normalise.ts";
import { csvParser } from "../../src/ingest/parsers/csv.parser.ts";
import { fixtureDoc, SHARED_DOCS, sharedDoc, TEST_PARSE_OPTIONS } from "./helpers/docs.ts";

const parse = async (bytes: Uint8Array) => csvParser.parse(bytes, TEST_PARSE_OPTIONS);
const csv = (s: string) => new TextEncoder().encode(s);

describe("the CSV parser", () => {
  // csv-spectrum ships the records each edge-case file must produce
  const spectrum: [string, string][] = [
    ["comma_in_quotes.csv", "comma_in_quotes.json"],
    ["escaped_quotes.csv", "escaped_quotes.json"],
    ["newlines.csv", "newlines.json"],
    ["simple.csv", "simple.json"],
    ["empty_crlf.csv", "empty.json"],
  ];
  for (const [file, expected] of spectrum) {
    test(`reads csv-spectrum ${file} into the records its ${expected} lists`, async () => {
      const doc = await parse(await sharedDoc(`csv/csv-spectrum/${file}`));
      const records = JSON.parse(await Bun.file(`${SHARED_DOCS}/csv/csv-spectrum/${expected}`).text()) as Record<string, string>[];
      const want = records.map((r, i) => ({
        type: "row" as const,
        row: i + 1,
        text: Object.entries(r)
          .filter(([, v]) => v !== "")
          .map(([k, v]) => `${k}: ${normaliseInline(v)}`)
          .join("; "),
      }));
      expect(doc.blocks).toEqual(want);
      expect(doc.header).toBe(Object.keys(records[0] ?? {}).join(" | "));
    });
  }

  test("sniffs semicolon, tab and pipe delimiters", async () => {
    expect((await parse(await sharedDoc("csv/frictionless/delimiter.csv"))).blocks[0]?.text).toBe("id: 1; name: english");
    expect((await parse(await sharedDoc("csv/frictionless/table.tsv"))).blocks[0]?.text).toBe("id: 1; name: english");
    const piped = await parse(await fixtureDoc("pipe-delimited.csv"));
    expect(piped.header).toBe("sku | name | note");
    expect(piped.blocks.map((b) => b.text)).toEqual([
      "sku: A-1; name: Kettle; note: boils fast and quietly",
      "sku: A-2; name: Toaster; note: two slots",
      "sku: A-3; name: Mixer",
    ]);
  });

  test("strips UTF-8 and UTF-16 byte-order marks from the first header", async () => {
    for (const file of ["frictionless/bom.csv", "node-csv/411.csv", "csvkit/test_utf16_big.csv", "node-csv/365-utf16le-bom-windows.csv"]) {
      const doc = await parse(await sharedDoc(`csv/${file}`));
      expect(doc.header?.charCodeAt(0)).not.toBe(0xfeff);
      expect(doc.header).toMatch(/^(id|a) \|/);
    }
  });

  test("names the extra cells of ragged rows instead of dropping them", async () => {
    const doc = await parse(csv("a,b\n1,2,3\n4\n"));
    expect(doc.header).toBe("a | b | column 3");
    expect(doc.blocks.map((b) => b.text)).toEqual(["a: 1; b: 2; column 3: 3", "a: 4"]);
  });

  test("handles CR-only line endings with a quoted CR inside a field", async () => {
    const doc = await parse(await sharedDoc("csv/csvkit/mac_newlines.csv"));
    expect(doc.blocks.map((b) => b.text)).toEqual(["a: 1; b: 2; c: 3", "a: Once upon a time; b: 5; c: 6"]);
  });

  test("falls back to Latin-1 when the bytes are not UTF-8", async () => {
    const doc = await parse(await sharedDoc("csv/frictionless/table-with-accents.csv"));
    expect(doc.header).toContain("Année");
  });

  test("keeps the rows before a quote left open by a truncated upload", async () => {
    const whole = await parse(await sharedDoc("csv/frictionless/issue-305.csv"));
    const cut = await parse(await sharedDoc("csv/derived-bad/issue-305-truncated-inside-quote.csv"));
    expect(cut.blocks.length).toBeGreaterThan(100);
    expect(cut.blocks.map((b) => b.text)).toEqual(whole.blocks.slice(0, cut.blocks.length).map((b) => b.text));
  });

  test("skips a '#' comment preamble before the header but keeps later '#' cells", async () => {
    const doc = await parse(csv("# exported by a tool\n#\nsku,tag\nA,#1\n#2,B\n"));
    expect(doc.header).toBe("sku | tag");
    expect(doc.blocks.map((b) => b.text)).toEqual(["sku: A; tag: #1", "sku: #2; tag: B"]);
  });

  test("numbers data rows from 1 and skips rows whose cells are all empty", async () => {
    const doc = await parse(await sharedDoc("csv/frictionless/blank-rows.csv"));
    expect(doc.blocks).toEqual([
      { type: "row", row: 1, text: "id: 1101; name: John; age: 30" },
      { type: "row", row: 2, text: "id: 1102; name: Julie; age: 26" },
    ]);
  });

  test("keeps a header-only file as one paragraph rather than reporting no text", async () => {
    const doc = await parse(csv("name,price,stock\n"));
    expect(doc.blocks).toEqual([{ type: "paragraph", text: "name | price | stock" }]);
  });
});
