import { describe, expect, test } from "bun:test";
import { chunkDocument, DEFAULT_CHUNK_OPTIONS, estimateTokens } from "../../src/ingest/chunk.ts";
import { parseDocument } from "../../src/ingest/parse.ts";
import type { Block, ParsedDocument } from "../../src/ingest/types.ts";
import { sharedDoc, TEST_PARSE_OPTIONS } from "./helpers/docs.ts";

const h = (level: number, text: string): Block => ({ type: "heading", text, level });
const p = (text: string, page?: number): Block => ({ type: "paragraph", text, page });
const doc = (blocks: Block[], extra: Partial<ParsedDocument> = {}): ParsedDocument => ({ kind: "txt", blocks, ...extra });
/** ~40 tokens of filler that names its index */
const para = (i: number) => `Paragraph ${i} ${"lorem ipsum dolor ".repeat(8).trim()}.`;

describe("chunkDocument", () => {
  test("starts a new chunk at every heading and carries the heading path", () => {
    const chunks = chunkDocument(
      doc([h(1, "Guide"), p("Intro."), h(2, "Setup"), p("Install it."), h(2, "Usage"), p("Run it."), h(1, "Appendix"), p("Notes.")]),
    );
    expect(chunks.map((c) => [c.headingPath, c.text])).toEqual([
      ["Guide", "Intro."],
      ["Guide > Setup", "Install it."],
      ["Guide > Usage", "Run it."],
      ["Appendix", "Notes."],
    ]);
    expect(chunks.map((c) => c.ord)).toEqual([0, 1, 2, 3]);
  });

  test("keeps a heading with nothing under it as its own chunk, unless a sub-heading carries it in its path", () => {
    const chunks = chunkDocument(doc([h(1, "Manual"), h(2, "Empty section"), h(2, "Filled"), p("Body."), h(2, "Trailing")]));
    expect(chunks.map((c) => [c.headingPath, c.text])).toEqual([
      ["Manual > Empty section", "Empty section"],
      ["Manual > Filled", "Body."],
      ["Manual > Trailing", "Trailing"],
    ]);
  });

  test("packs whole paragraphs up to the budget and keeps the page range they span", () => {
    const blocks = [p(para(1), 1), p(para(2), 2), p(para(3), 2), p(para(4), 3)];
    const chunks = chunkDocument(doc(blocks, { kind: "pdf", pages: 3 }), { maxTokens: 100, overlapTokens: 0 });
    expect(chunks.map((c) => [c.text, c.pageStart, c.pageEnd])).toEqual([
      [`${para(1)}\n\n${para(2)}`, 1, 2],
      [`${para(3)}\n\n${para(4)}`, 2, 3],
    ]);
  });

  test("splits an oversize paragraph on sentence boundaries, each chunk repeating the previous one's last sentence", () => {
    const sentences = Array.from({ length: 20 }, (_, i) => `Sentence number ${i + 1} is right here.`);
    const chunks = chunkDocument(doc([p(sentences.join(" "))]), { maxTokens: 40, overlapTokens: 12 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const [i, chunk] of chunks.entries()) {
      expect(chunk.tokenCount).toBeLessThanOrEqual(40);
      expect(chunk.text).toMatch(/^Sentence number \d+ is right here\.( Sentence number \d+ is right here\.)*$/);
      const next = chunks[i + 1];
      if (next) expect(next.text.startsWith(chunk.text.split(/(?<=\.) /).at(-1) ?? "")).toBe(true);
    }
    expect(chunks.at(-1)?.text).toEndWith("Sentence number 20 is right here.");
  });

  test("does not overlap whole paragraphs that fit, only the pieces of a split one", () => {
    const chunks = chunkDocument(doc([p(para(1)), p(para(2)), p(para(3))]), { maxTokens: 50, overlapTokens: 20 });
    expect(chunks.map((c) => c.text)).toEqual([para(1), para(2), para(3)]);
  });

  test("repeats the CSV header at the top of every chunk and keeps contiguous row ranges", () => {
    const rows: Block[] = Array.from({ length: 30 }, (_, i) => ({ type: "row", row: i + 1, text: `id: ${i + 1}; name: item ${i + 1}` }));
    const chunks = chunkDocument(doc(rows, { kind: "csv", header: "id | name" }), { maxTokens: 40, overlapTokens: 10 });
    expect(chunks.length).toBeGreaterThan(3);
    let expectedStart = 1;
    for (const chunk of chunks) {
      expect(chunk.text.startsWith("id | name\nid: ")).toBe(true);
      expect(chunk.tokenCount).toBeLessThanOrEqual(40);
      expect(chunk.rowStart).toBe(expectedStart);
      expect(chunk.text.split("\n").length - 1).toBe((chunk.rowEnd ?? 0) - (chunk.rowStart ?? 0) + 1);
      expectedStart = (chunk.rowEnd ?? 0) + 1;
    }
    expect(expectedStart).toBe(31);
  });

  test("leaves out a CSV header too wide to repeat, since every row already names its columns", () => {
    const header = Array.from({ length: 40 }, (_, i) => `column name ${i}`).join(" | ");
    const chunks = chunkDocument(doc([{ type: "row", row: 1, text: "column name 0: x" }], { kind: "csv", header }), {
      maxTokens: 100,
      overlapTokens: 0,
    });
    expect(chunks.map((c) => c.text)).toEqual(["column name 0: x"]);
  });

  test("cuts a CSV row wider than the budget between cells, each part keeping the row's key cells and the Name: value shape", () => {
    const wide = Array.from({ length: 60 }, (_, i) => `Metric ${i}: ${1000 + i}`).join("; ");
    const rows: Block[] = [
      { type: "row", row: 1, text: "Year: 2019; County: Alpha" },
      { type: "row", row: 2, text: `Year: 2020; County: Bravo; ${wide}` },
      { type: "row", row: 3, text: "Year: 2021; County: Charlie" },
      { type: "row", row: 4, text: "Year: 2022; County: Delta" },
    ];
    const chunks = chunkDocument(doc(rows, { kind: "csv", header: "Year | County" }), { maxTokens: 60, overlapTokens: 10 });
    const parts = chunks.filter((c) => (c.rowStart ?? 0) <= 2 && 2 <= (c.rowEnd ?? 0));
    expect(parts.length).toBeGreaterThan(3);
    const lines = parts.flatMap((c) => c.text.split("\n").filter((l) => l.startsWith("Year: 2020")));
    expect(lines).toHaveLength(parts.length);
    for (const c of parts) expect(c.tokenCount).toBeLessThanOrEqual(60);
    for (const l of lines) expect(l).toMatch(/^Year: 2020; County: Bravo; Metric \d+: \d+(; Metric \d+: \d+)*$/);
    // every cell is kept, once, in order; short ends share their chunk with the rows around them
    expect(lines.flatMap((l) => l.split("; ").slice(2)).join("; ")).toBe(wide);
    expect(chunks.flatMap((c) => c.text.split("\n").slice(1))).toContain("Year: 2022; County: Delta");
  });

  test("a 1-row × 200,000-column CSV becomes chunks within the budget, each naming the row's key (N2)", async () => {
    const columns = 200_000;
    const header = ["id", ...Array.from({ length: columns - 1 }, (_, i) => `c${i + 1}`)].join(",");
    const row = ["row-one", ...Array.from({ length: columns - 1 }, (_, i) => `v${i + 1}`)].join(",");
    const parsed = await parseDocument(new TextEncoder().encode(`${header}\n${row}\n`), { ...TEST_PARSE_OPTIONS, filename: "wide.csv" });
    const chunks = chunkDocument(parsed);
    expect(chunks.length).toBeGreaterThan(100);
    for (const c of chunks) {
      expect(c.tokenCount).toBeLessThanOrEqual(DEFAULT_CHUNK_OPTIONS.maxTokens);
      expect(c.text.startsWith("id: row-one; ")).toBe(true);
      expect(c.rowStart).toBe(1);
    }
    expect(chunks.at(-1)?.text.endsWith(`c${columns - 1}: v${columns - 1}`)).toBe(true);
  }, 60_000);

  test("no chunk of any format passes the hard cap, whatever its blocks look like", () => {
    const long = "word ".repeat(20_000);
    const blocks: Block[] = [
      h(1, `Heading ${long}`),
      { type: "table", text: `${"Column ".repeat(5000)}\n${long}\n${long}` },
      { type: "list", text: `- ${long}\n- ${"x".repeat(50_000)}` },
      p(long),
      { type: "row", row: 1, text: `Key: ${"k".repeat(10_000)}; Value: ${long}` },
    ];
    const cap = 2 * DEFAULT_CHUNK_OPTIONS.maxTokens;
    for (const c of chunkDocument(doc(blocks, { header: "Key | Value" }))) expect(c.tokenCount).toBeLessThanOrEqual(cap);
  });

  test("splits a multi-megabyte line with no spaces and a long run of words in one pass", () => {
    const noSpaces = "abcdefghij".repeat(300_000);
    const words = "alpha beta gamma delta ".repeat(150_000).trim();
    for (const text of [noSpaces, words]) {
      const chunks = chunkDocument(doc([p(text)]), { maxTokens: DEFAULT_CHUNK_OPTIONS.maxTokens, overlapTokens: 0 });
      expect(chunks.length).toBeGreaterThan(1000);
      for (const c of chunks) expect(c.tokenCount).toBeLessThanOrEqual(DEFAULT_CHUNK_OPTIONS.maxTokens);
      const same = chunks.map((c) => c.text.replaceAll(" ", "")).join("") === text.replaceAll(" ", "");
      expect(same).toBe(true);
    }
  });

  test("repeats a table's first row when the table continues in the next chunk", () => {
    const lines = ["Zone | Price", ...Array.from({ length: 20 }, (_, i) => `Zone ${i} | ${i}.90 EUR`)];
    const chunks = chunkDocument(doc([{ type: "table", text: lines.join("\n") }]), { maxTokens: 30, overlapTokens: 0 });
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(chunk.text.startsWith("Zone | Price\n")).toBe(true);
    const bodyLines = chunks.flatMap((c) => c.text.split("\n").slice(1));
    expect(bodyLines).toEqual(lines.slice(1));
  });

  test("cuts text with no spaces or sentence breaks by characters within the budget", () => {
    const chunks = chunkDocument(doc([p("x".repeat(5000))]), { maxTokens: 50, overlapTokens: 0 });
    expect(chunks.map((c) => c.text).join("")).toBe("x".repeat(5000));
    for (const c of chunks) expect(c.tokenCount).toBeLessThanOrEqual(50);
  });

  const realFiles = [
    "txt/gutenberg-11-alice.txt",
    "pdf/text/pdflatex-4-pages.pdf",
    "pdf/tables/WARN-Report-for-7-1-2015-to-03-25-2016.pdf",
    "docx/poi/bug59058.docx",
    "csv/node-csv/265.tubs.csv",
    "txt/encodings/SHIFT_JIS___ude_4.txt",
  ];
  for (const file of realFiles) {
    test(`keeps every chunk of ${file} within the budget with a truthful token count`, async () => {
      const parsed = await parseDocument(await sharedDoc(file), { ...TEST_PARSE_OPTIONS, filename: file });
      for (const opts of [DEFAULT_CHUNK_OPTIONS, { maxTokens: 120, overlapTokens: 30 }]) {
        const chunks = chunkDocument(parsed, opts);
        expect(chunks.length).toBeGreaterThan(0);
        chunks.forEach((c, i) => {
          expect(c.ord).toBe(i);
          expect(c.tokenCount).toBe(estimateTokens(c.text));
          // only a CSV row wider than the budget may pass it, and then it is alone in its chunk
          if (c.tokenCount > opts.maxTokens) expect([parsed.kind, c.rowStart]).toEqual(["csv", c.rowEnd]);
          else expect(c.tokenCount).toBeLessThanOrEqual(opts.maxTokens);
          expect(c.text.trim()).not.toBe("");
        });
      }
    });
  }
});

describe("estimateTokens", () => {
  test("counts about four characters a token, and one per CJK character", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("abcde")).toBe(2);
    expect(estimateTokens("日本語")).toBe(3);
    expect(estimateTokens("日本語 abcd")).toBe(5);
  });
});
