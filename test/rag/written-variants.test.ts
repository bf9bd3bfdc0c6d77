import { describe, expect, test } from "bun:test";
import { writtenVariants } from "../../src/rag/written-variants.ts";

describe("written variants of a question's words", () => {
  test("an acronym's plural the English stemmer leaves alone also searches its singular", () => {
    expect(writtenVariants("Do TLRs, E2Fs and mRNAs bind?", ["en"])).toEqual(["tlr", "e2f", "mrna"]);
  });

  test("a plural the stemmer already conflates adds nothing, and lower-case words are not acronyms", () => {
    expect(writtenVariants("Proteins and genes in cells", ["en"])).toEqual([]);
    expect(writtenVariants("the news about gas", ["en"])).toEqual([]);
  });

  test("acronym plurals are an English rule", () => {
    expect(writtenVariants("Die TLRs", ["de"])).toEqual([]);
  });

  test("a hyphenated word is also searched closed, in each analysis language", () => {
    expect(writtenVariants("pro-inflammatory cytokines", ["en"])).toEqual(["proinflammatori"]);
    expect(writtenVariants("Wann kommt die E-Mail?", ["de", "en"])).toEqual(["email"]);
  });

  test("a word joined to a number or to more than one other word is left alone", () => {
    expect(writtenVariants("CTLA-4 and long-range-effects", ["en"])).toEqual([]);
  });
});
