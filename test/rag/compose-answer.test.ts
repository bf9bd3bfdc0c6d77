import { describe, expect, test } from "bun:test";
import { composeAnswer, formatRow } from "../../src/rag/compose-answer.ts";
import { segmentPassage, splitSentences } from "../../src/rag/sentences.ts";

const compose = (passages: { text: string; source: string; headingPath?: string }[], question: string, maxTokens = 512) =>
  composeAnswer({ passages, question, maxTokens });

describe("sentence segmentation", () => {
  test("abbreviations, initials, decimals and figure references never end a sentence", () => {
    const text =
      "Mr. Holmes met Dr. Watson at 3 p.m. on Baker St. in London. The dose is 3.5 mg, e.g. for adults. See Fig. 3 for details. J. R. R. Tolkien wrote it. U.S. forces landed.";
    expect(splitSentences(text)).toEqual([
      "Mr. Holmes met Dr. Watson at 3 p.m. on Baker St. in London.",
      "The dose is 3.5 mg, e.g. for adults.",
      "See Fig. 3 for details.",
      "J. R. R. Tolkien wrote it.",
      "U.S. forces landed.",
    ]);
  });

  test("a path with a dot (~/.bash_logout, ./configure) never ends a sentence", () => {
    expect(splitSentences("On exit bash reads ~/.bash_logout, if it exists. Run ./configure first.")).toEqual([
      "On exit bash reads ~/.bash_logout, if it exists.",
      "Run ./configure first.",
    ]);
  });

  test("headings and inline labels are units of their own, list items and table rows too", () => {
    const units = segmentPassage(
      "Support hours\n\nThe desk is open Monday to Friday. SUMMARY : The study found an effect in adults.\n- Tracking is included\n\nZone | Price\nEurope | 9.90 EUR",
    );
    expect(units.map((u) => [u.kind, u.text])).toEqual([
      ["heading", "Support hours"],
      ["sentence", "The desk is open Monday to Friday."],
      ["heading", "SUMMARY"],
      ["sentence", "The study found an effect in adults."],
      ["item", "Tracking is included"],
      ["header", "Zone | Price"],
      ["row", "Zone: Europe; Price: 9.90 EUR"],
    ]);
  });
});

describe("extractive answer composer", () => {
  const csv = {
    source: "products",
    text: "sku | name | note\nsku: A-1; name: Kettle; note: boils fast and quietly\nsku: A-2; name: Toaster; note: two slots\nsku: A-3; name: Mixer",
  };

  test("a CSV question is answered as Column: value lines of the matching row only", () => {
    const a = compose([csv], "What is the note for the Kettle?");
    expect(a.text).toBe("sku: A-1\nname: Kettle\nnote: boils fast and quietly");
    expect(a.text).not.toContain("Toaster");
    expect(a.text).not.toContain("|");
  });

  test("a wide row shows the cells that identify it and the cell asked for, never formulas or auto-named empty columns", () => {
    const row =
      'State Name: ALASKA; State Abbreviate: AK; Code: 02; Chart: =IMAGE("http://x/y.png"); Reserve: 60; TOTAL: 1,158; column 10: ';
    expect(formatRow(row)).not.toContain("=IMAGE");
    expect(formatRow(row)).not.toContain("column 10");
    const a = compose(
      [
        {
          source: "recipients",
          text: `State Name | State Abbreviate | Code | Chart | Reserve | TOTAL | column 10\n${row}\nState Name: ARIZONA; State Abbreviate: AZ; Code: 04; Chart: =IMAGE("z"); Reserve: 2,011; TOTAL: 33,986; column 10: `,
        },
      ],
      "What is the total for Alaska?",
    );
    expect(a.text).toBe("State Name: ALASKA\nTOTAL: 1,158");
  });

  test("a heading never starts an answer sentence and is never glued to one", () => {
    const a = compose(
      [
        {
          source: "handbook",
          text: "Support hours\nThe support desk is open Monday to Friday from 9am to 5pm.\n\nSUMMARY : Urgent incidents are handled around the clock by the support hotline.",
        },
      ],
      "When is the support desk open?",
    );
    expect(a.text.startsWith("The support desk is open")).toBe(true);
    expect(a.text).not.toContain("Support hours");
    expect(a.text).not.toContain("SUMMARY");
  });

  test("abbreviations and decimals stay inside the quoted sentence", () => {
    const a = compose(
      [
        {
          source: "leaflet",
          text: "Mr. Smith wrote this leaflet. The dose is 3.5 mg, e.g. for adults, as Fig. 3 shows. Children take less.",
        },
      ],
      "What is the dose for adults?",
    );
    expect(a.text).toContain("The dose is 3.5 mg, e.g. for adults, as Fig. 3 shows.");
    expect(a.text).not.toMatch(/^e\.g\.|^3 shows/);
  });

  test("a sentence that two passages share is quoted once", () => {
    const s = "Annual plans can be refunded in full within 30 days of purchase.";
    const a = compose(
      [
        { source: "handbook", text: `${s} Monthly plans are not refundable.` },
        { source: "handbook", text: `Refunds\n${s}` },
      ],
      "Can annual plans be refunded?",
    );
    expect(a.text.split(s).length - 1).toBe(1);
  });

  test("answers are bounded: a few sentences by default, and max_tokens cuts at a word boundary", () => {
    const text = Array.from({ length: 12 }, (_, i) => `The lighthouse keeper logs ship number ${i + 1} in the lighthouse book.`).join(" ");
    const a = compose([{ source: "log", text }], "What does the lighthouse keeper log?");
    expect(splitSentences(a.text).length).toBeLessThanOrEqual(3);
    const cut = compose([{ source: "log", text }], "What does the lighthouse keeper log?", 5);
    expect(cut.truncated).toBe(true);
    expect(text.startsWith(cut.text) || text.includes(cut.text)).toBe(true);
  });

  test("without the deployment's weights, stopwords never pick a sentence", () => {
    const a = compose(
      [{ source: "museum", text: "What is the point of the visit is to see the boats. The lighthouse was built in 1871." }],
      "What is the year the lighthouse was built?",
    );
    expect(a.text).toBe("The lighthouse was built in 1871.");
  });

  test("a sentence that carries on from the best one follows it, since it often holds the answer itself", () => {
    const a = compose(
      [
        {
          source: "language",
          text: "The Anglo-Norman language became distinct from Latin. It in turn evolved into Modern English. Chaucer wrote in it.",
        },
      ],
      "What did the Anglo-Norman language become distinct from?",
    );
    expect(a.text).toBe("The Anglo-Norman language became distinct from Latin. It in turn evolved into Modern English.");
  });

  test("an answer that quotes one document uses only that document", () => {
    const a = compose(
      [
        { source: "museum", text: "The Harbour Museum is open Tuesday to Sunday from 10am to 6pm. It is closed on Mondays." },
        { source: "handbook", text: "The support desk is open Monday to Friday from 9am to 5pm." },
      ],
      "When is the Harbour Museum open?",
    );
    expect(a.used).toEqual([0]);
    expect(a.text).not.toContain("support desk");
  });
});
