import { expect, test } from "bun:test";
import { readingOrder } from "../../src/ingest/parsers/pdf-ocr-layout.ts";
import { blocksFromTsv } from "../../src/ingest/parsers/pdf-ocr-tsv.ts";

const row = (level: number, nums: number[], box: number[], text = "") =>
  [level, 1, ...nums, ...box, level === 5 ? 95 : -1, text].join("\t");

test("Tesseract's TSV becomes its blocks, paragraphs and lines, words one space apart, blocks without text kept", () => {
  const tsv = [
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext",
    row(1, [0, 0, 0, 0], [0, 0, 1000, 800]),
    row(2, [1, 0, 0, 0], [500, 0, 400, 300]),
    row(3, [1, 1, 0, 0], [500, 0, 400, 300]),
    row(4, [1, 1, 1, 0], [500, 0, 400, 40]),
    row(5, [1, 1, 1, 1], [500, 0, 100, 40], "right"),
    row(5, [1, 1, 1, 2], [620, 0, 100, 40], "column"),
    row(4, [1, 1, 2, 0], [500, 50, 400, 40]),
    row(5, [1, 1, 2, 1], [500, 50, 100, 40], "second"),
    row(3, [1, 2, 0, 0], [500, 100, 400, 40]),
    row(4, [1, 2, 1, 0], [500, 100, 400, 40]),
    row(5, [1, 2, 1, 1], [500, 100, 100, 40], "next"),
    // a rule: a block whose one word is blank
    row(2, [2, 0, 0, 0], [0, 400, 1000, 4]),
    row(3, [2, 1, 0, 0], [0, 400, 1000, 4]),
    row(4, [2, 1, 1, 0], [0, 400, 1000, 4]),
    row(5, [2, 1, 1, 1], [0, 400, 1000, 4], " "),
    row(2, [3, 0, 0, 0], [0, 0, 400, 300]),
    row(3, [3, 1, 0, 0], [0, 0, 400, 300]),
    row(4, [3, 1, 1, 0], [0, 0, 400, 40]),
    row(5, [3, 1, 1, 1], [0, 0, 100, 40], "left"),
    "",
  ].join("\n");
  const blocks = blocksFromTsv(tsv);
  expect(blocks).toEqual([
    { bbox: { x0: 500, y0: 0, x1: 900, y1: 300 }, paragraphs: [{ lines: ["right column", "second"] }, { lines: ["next"] }] },
    { bbox: { x0: 0, y0: 400, x1: 1000, y1: 404 }, paragraphs: [{ lines: [""] }] },
    { bbox: { x0: 0, y0: 0, x1: 400, y1: 300 }, paragraphs: [{ lines: ["left"] }] },
  ]);
  // the left column first, then the right, then the rule below both
  expect(readingOrder(blocks).map((b) => b.paragraphs[0]?.lines[0])).toEqual(["left", "right column", ""]);
});
