import { describe, expect, test } from "bun:test";
import { csvCell, toCsv } from "../../src/shared/csv.ts";

describe("CSV export", () => {
  test("prefixes cells a spreadsheet would run as a formula with an apostrophe", () => {
    for (const bad of ['=HYPERLINK("http://evil")', "+1+1", "-2+3", "@SUM(A1)", "\tcmd", "\rcmd"]) {
      expect(csvCell(bad).replace(/^"/, "").startsWith("'")).toBe(true);
    }
    expect(csvCell("hello")).toBe("hello");
    expect(csvCell("a=b")).toBe("a=b");
  });

  test("quotes commas, quotes and line breaks per RFC 4180", () => {
    expect(csvCell('say "hi", ok')).toBe('"say ""hi"", ok"');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell(null)).toBe("");
    expect(toCsv(["a", "b"], [["=1", 2]])).toBe("a,b\r\n'=1,2\r\n");
  });
});
