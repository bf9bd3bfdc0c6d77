/**
 * PDFs read as people read them, from pdf.js text positions, on the real files of ../shared/data/docs: columns in
 * order, running headers and footers out of the text (and kept in the document's meta), transcript line numbers
 * out, tables as rows that name each cell's column, and definition entries kept with their term.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chunkDocument } from "../../src/ingest/chunk.ts";
import { pdfParser } from "../../src/ingest/parsers/pdf.parser.ts";
import type { ParsedDocument } from "../../src/ingest/types.ts";
import { sharedDoc, TEST_PARSE_OPTIONS } from "./helpers/docs.ts";
import { writePdf } from "./helpers/pdf-writer.ts";

setDefaultTimeout(60_000);

const docs = new Map<string, ParsedDocument>();
const parse = async (path: string) => pdfParser.parse(await sharedDoc(path), { ...TEST_PARSE_OPTIONS, maxPages: 200 });
const texts = (doc: ParsedDocument, type?: string) => doc.blocks.filter((b) => !type || b.type === type).map((b) => b.text);
const field = (doc: ParsedDocument, label: string) => doc.meta?.fields.filter((f) => f.label === label).map((f) => f.value);

beforeAll(async () => {
  for (const path of [
    "pdf/text/federal-register-2020-17221.pdf",
    "pdf/text/debian-bash-doc-bash.pdf",
    "pdf/text/scotus-transcript-p1.pdf",
    "pdf/tables/nics-background-checks-2015-11.pdf",
    "pdf/tables/WARN-Report-for-7-1-2015-to-03-25-2016.pdf",
    "pdf/tables/senate-expenditures.pdf",
    "pdf/text/GeoTopo-komprimiert.pdf",
  ])
    docs.set(path.split("/").at(-1)?.replace(".pdf", "") ?? path, await parse(path));
});
const doc = (name: string) => docs.get(name) as ParsedDocument;

/** Two columns of a page, drawn the way some generators do: line by line across the page, left then right. */
function acrossColumns(left: string[], right: string[]): Uint8Array {
  const placed = left.flatMap((text, i) => [
    { x: 72, y: 700 - i * 14, text },
    { x: 320, y: 700 - i * 14, text: right[i] ?? "" },
  ]);
  return writePdf([{ placed: placed.filter((p) => p.text) }]);
}

describe("reading order", () => {
  test("columns are read column by column, even when drawn line by line across the page", async () => {
    const left = [
      "The lighthouse keeper climbed the stairs",
      "every evening at dusk to light the lamp,",
      "and each night he wrote the name of every",
      "ship that passed the point into a leather",
      "log he kept on the desk beside the window.",
    ];
    const right = [
      "The harbour master read that log each week",
      "and sent a summary of the traffic to the",
      "coast guard office in the nearest town, who",
      "kept the reports in a cabinet for years and",
      "lent them to historians who asked politely.",
    ];
    const parsed = await pdfParser.parse(acrossColumns(left, right), TEST_PARSE_OPTIONS);
    const text = texts(parsed).join("\n");
    expect(text).toContain("each night he wrote the name of every ship that passed the point into a leather log he kept on the desk");
    expect(text).toContain("sent a summary of the traffic to the coast guard office in the nearest town, who kept the reports");
    expect(text.indexOf("beside the window.")).toBeLessThan(text.indexOf("The harbour master"));
    // a real three-column notice (drawn column by column): sentences that cross a column break read whole
    const notice = texts(doc("federal-register-2020-17221")).join("\n");
    // page 5 (47701): the first sentence runs from the foot of column 1 into column 2, the second from 2 into 3
    expect(notice).toContain("The checklist provides additional information for the flightcrew to use if the airplane is in flight.");
    expect(notice).toContain("The FAA proposes this action to bring the airplanes into regulatory compliance.");
    // page 2: the sentence goes on in the next column after the footnotes at the foot of the first
    expect(notice).toContain(
      "These effects include stall warning activation, airspeed disagree alert, and altitude disagree alert,5 and may affect the flightcrew’s ability",
    );
  });
});

describe("running headers, footers and page numbers", () => {
  test("are dropped from the text of every page, and their first occurrence is kept as document meta", () => {
    const fr = doc("federal-register-2020-17221");
    expect(texts(fr).filter((t) => /Federal Register \/ Vol\. 85|VerDate|Sfmt 4702/.test(t))).toEqual([]);
    expect(texts(fr).filter((t) => /^4770\d$|^477\d\d$/.test(t))).toEqual([]);
    expect(field(fr, "Page header")).toEqual(["Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Proposed Rules"]);
    const bash = doc("debian-bash-doc-bash");
    expect(texts(bash).filter((t) => /GNU Bash 5\.2|General Commands Manual/.test(t))).toEqual([]);
    expect(field(bash, "Page footer")).toEqual(["GNU Bash 5.2 2022 September 19"]);
    expect(field(bash, "Page header")).toEqual(["BASH(1) General Commands Manual BASH(1)"]);
  });

  test("a book's header that names the current chapter beside the page number is dropped too", () => {
    const notes = doc("GeoTopo-komprimiert");
    // "7 1.2. METRISCHE RÄUME" on one page, "48 3.2. FUNDAMENTALGRUPPE" on another
    expect(texts(notes).filter((t) => /^\d+ \d\.\d\. [\p{Lu} ]+$/u.test(t))).toEqual([]);
    expect(texts(notes)).toContain(
      "Dieses Skript wurde im Wintersemester 2013/2014 von Martin Thoma geschrieben. Es beinhaltet die Mitschriften aus der Vorlesung von Prof. Dr. Herrlich sowie die Mitschriften einiger Übungen und Tutorien.",
    );
  });

  test("a transcript's line numbers and its one-page running lines are not part of its text", () => {
    const scotus = doc("scotus-transcript-p1");
    const text = texts(scotus);
    expect(text.filter((t) => /^\d{1,2}$|(^|\s)(1[0-9]|2[0-5])\s+\d/.test(t))).toEqual([]);
    expect(text.join("\n")).not.toContain("Official - Subject to Final Review");
    // a wrapped appearance reads as one entry, its hanging indent joined
    expect(text).toContain("STEVEN E. MERCER, ESQ., Deputy Attorney General, Los Angeles, Cal.; on behalf of the Petitioner.");
    expect(field(scotus, "Page header")).toEqual(["Official - Subject to Final Review"]);
  });

  test("the title printed in the largest type on the first page names a document whose PDF info has none", () => {
    expect(field(doc("nics-background-checks-2015-11"), "Title")).toEqual(["NICS Firearm Background Checks November - 2015"]);
    expect(field(doc("debian-bash-doc-bash"), "Title")).toEqual([]);
  });
});

describe("tables", () => {
  test("a dense numeric table: each row names its label and every cell's column, group headers combined", () => {
    const rows = texts(doc("nics-background-checks-2015-11"), "row");
    expect(rows).toHaveLength(56);
    const pa = rows.find((r) => r.startsWith("State / Territory: Pennsylvania;"));
    expect(pa).toStartWith("State / Territory: Pennsylvania; Permit: 24,136; Handgun: 62,752; Long Gun: 16,297;");
    expect(pa).toContain("; Pre-Pawn Handgun: 0; Pre-Pawn Long Gun: 0;");
    expect(pa).toContain("; Return to Seller - Private Sale Handgun: 0;");
    const total = rows.at(-1);
    expect(total).toStartWith("State / Territory: Totals;");
    expect(total).toEndWith(
      "; Rentals Handgun: 0; Rentals Long Gun: 0; Private Sale Handgun: 1,067; Private Sale Long Gun: 905; Private Sale Other: 65; Return to Seller - Private Sale Handgun: 31; Return to Seller - Private Sale Long Gun: 45; Return to Seller - Private Sale Other: 5; Totals: 2,236,457",
    );
  });

  test("a table over 16 pages keeps its header on every page, and a two-line header names the summary's columns", () => {
    const warn = doc("WARN-Report-for-7-1-2015-to-03-25-2016");
    const rows = warn.blocks.filter((b) => b.type === "row");
    expect(new Set(rows.map((r) => r.page)).size).toBe(16);
    expect(rows.every((r) => /^(Notice Date|Summary by Month): /.test(r.text))).toBe(true);
    expect(rows.map((r) => r.text)).toContain(
      "Notice Date: 10/12/2015; Effective: 12/13/2015; Received: 10/14/2015; Company: Twitter, Inc.; City: San Francisco; No. Of: 240; Layoff/Closure: Layoff Permanent",
    );
    // the summary starts at the foot of page 15 and goes on over page 16 without repeating its header
    const december = rows.find((r) => r.text.startsWith("Summary by Month: December 2015;"));
    expect(december?.page).toBe(16);
    expect(december?.text).toStartWith("Summary by Month: December 2015; Notices: 69; Employees Affected: 8,729; Permanent Layoff: 21;");
  });

  test("a sideways table reads by its rows, a wrapped cell joined, a header set over four lines", () => {
    const rows = texts(doc("senate-expenditures"), "row");
    expect(rows).toContain(
      "DOCUMENT NO.: DHAW20190031; DATE POSTED: 05/28/2019; PAYEE NAME: CITIBANK - SENATOR IBA CARD; OBLIGATION/SERVICE DATES START: 05/10/2019; OBLIGATION/SERVICE DATES END: 05/11/2019; DESCRIPTION: SENATOR'S TRANSPORTATION TRAIN FARE FOR SEN HAWLEY WASHINGTON DC TO NEW YORK NY AND RETURN; AMOUNT ($): 618.00",
    );
    expect(rows).toContain("PAYEE NAME: BAIN, J MATTHEW; DESCRIPTION: DISTRICT DIRECTOR; AMOUNT ($): 37,499.96");
  });

  test("a cost table in a notice becomes rows, dot leaders and wrapped cells tidied, while its prose stays prose", () => {
    const fr = doc("federal-register-2020-17221");
    const rows = texts(fr, "row");
    expect(rows).toContain(
      "Action: AOA sensor system test; Labor cost: 40 work-hours × $85 per hour = $3,400.; Parts cost: $0; Cost per product: $3,400; Cost on U.S. operators: $248,200.",
    );
    expect(rows).toHaveLength(5);
    expect(texts(doc("debian-bash-doc-bash"), "row")).toEqual([]);
  });
});

describe("definition lists", () => {
  test("an option stays with its term, under its command and section, and its text starts with the term as it is used", () => {
    const bash = doc("debian-bash-doc-bash");
    const chunks = chunkDocument(bash);
    const e = chunks.find((c) => /^SHELL BUILTIN COMMANDS > set \[-abefhkmnptuvxBCEHPT\].* > -e$/.test(c.headingPath));
    expect(e?.text).toStartWith("-e (set -e): Exit immediately if a pipeline (which may consist of a single simple command)");
    const pipefail = chunks.find((c) => c.headingPath.endsWith("> -o option-name > pipefail"));
    expect(pipefail?.text).toStartWith("pipefail (set -o pipefail): If set, the return value of a pipeline is the value of the last");
    const histsize = chunks.find((c) => c.headingPath.endsWith("Shell Variables > HISTSIZE"));
    expect(histsize?.text).toContain("The shell sets the default value to 500 after reading any startup files.");
  });
});
