import { describe, expect, test } from "bun:test";
import { textToBlocks, txtParser } from "../../src/ingest/parsers/txt.parser.ts";
import { fixtureDoc, sharedDoc, TEST_PARSE_OPTIONS } from "./helpers/docs.ts";

const parse = async (bytes: Uint8Array) => txtParser.parse(bytes, TEST_PARSE_OPTIONS);

describe("the TXT parser", () => {
  test("decodes UTF-16LE with a BOM and turns markdown # headings into heading blocks", async () => {
    const doc = await parse(await fixtureDoc("notes-utf16le.txt"));
    expect(doc.blocks).toEqual([
      { type: "heading", text: "Garden guide", level: 1 },
      { type: "paragraph", text: "Water the tomatoes every morning." },
      { type: "heading", text: "Pests", level: 2 },
      { type: "paragraph", text: "Aphids dislike garlic spray." },
    ]);
  });

  test("decodes BOM-less UTF-16 by its zero-byte pattern", async () => {
    const bytes = new Uint8Array(Buffer.from("Plain words in sixteen bits.\n", "utf16le"));
    expect((await parse(bytes)).blocks).toEqual([{ type: "paragraph", text: "Plain words in sixteen bits." }]);
  });

  test("falls back to Windows-1252 when the bytes are not UTF-8", async () => {
    const doc = await parse(await fixtureDoc("notes-windows-1252.txt"));
    expect(doc.blocks[0]?.text).toBe("The café sign said “open” – every day except Monday.");
    const latin1 = await parse(await sharedDoc("txt/encodings/iso-8859-1___ude_1.txt"));
    expect(latin1.blocks.map((b) => b.text).join(" ")).toMatch(/[àáâãçéêíóôõú]/);
  });

  test("reads mostly-valid UTF-8 as UTF-8 despite a few broken bytes", async () => {
    const doc = await parse(await sharedDoc("txt/derived-bad/alice-invalid-utf8-bytes.txt"));
    const text = [...doc.blocks.map((b) => b.text), ...(doc.meta?.fields ?? []).map((f) => f.value)].join("\n");
    expect(text).toContain("Alice’s Adventures in Wonderland");
    expect(text).not.toContain("\ufffd");
  });

  test("removes zero-width and control characters and normalises CRLF and CR line breaks", async () => {
    const doc = await parse(await fixtureDoc("invisible-controls.txt"));
    expect(doc.blocks).toEqual([
      { type: "paragraph", text: "Zerowidth joiner and a bell here. Second line third line." },
      { type: "paragraph", text: "Next paragraph." },
    ]);
  });

  test("composes decomposed accents to NFC", async () => {
    const doc = await parse(new TextEncoder().encode("Cafe\u0301 au lait"));
    expect(doc.blocks[0]?.text).toBe("Caf\u00e9 au lait");
  });
});

describe("textToBlocks", () => {
  test("recognises setext headings and keeps list paragraphs as list blocks", () => {
    const blocks = textToBlocks("Title\n=====\n\nIntro line.\n\n- first\n- second\n\nSection\n-------\nBody.");
    expect(blocks).toEqual([
      { type: "heading", text: "Title", level: 1 },
      { type: "paragraph", text: "Intro line." },
      { type: "list", text: "- first\n- second" },
      { type: "heading", text: "Section", level: 2 },
      { type: "paragraph", text: "Body." },
    ]);
  });

  test("does not read # lines inside a fenced code block as headings", () => {
    const blocks = textToBlocks("```\n# not a heading\n```\n\n# Real heading");
    expect(blocks).toEqual([
      { type: "paragraph", text: "``` # not a heading ```" },
      { type: "heading", text: "Real heading", level: 1 },
    ]);
  });

  test("needs a space after the hashes, so a hashtag stays text", () => {
    expect(textToBlocks("#hashtag and more")).toEqual([{ type: "paragraph", text: "#hashtag and more" }]);
  });
});
