import { describe, expect, test } from "bun:test";
import { expectedAnswerType, holdsAnswerType, isQuestion } from "../../src/rag/answer-type.ts";
import { answerability } from "../../src/rag/grounding-gate.ts";
import { stem } from "../../src/rag/terms.ts";
import { CARD_HEADING } from "../../src/shared/document-card-labels.ts";

/** weights keyed as the gate keys them: by each word's stem */
const weighted = (pairs: [string, number][]) => new Map(pairs.map(([w, n]) => [stem(w), n]));

describe("answer types", () => {
  test("questions are told from statements and keyword queries", () => {
    expect(isQuestion("When does the depot open?")).toBe(true);
    expect(isQuestion("how many members does the Pro plan include")).toBe(true);
    expect(isQuestion("ALDH1 expression is associated with poorer prognosis in breast cancer.")).toBe(false);
    expect(isQuestion("refund policy annual plan")).toBe(false);
  });

  test("the question's own interrogative decides the answer type, not a clause inside it", () => {
    expect(expectedAnswerType("What file does bash read when a login shell exits?")).toBeNull();
    expect(expectedAnswerType("In what year was the lighthouse built?")).toBe("time");
    expect(expectedAnswerType("Who replaced the Normans when they arrived?")).toBe("name");
  });

  test("a when-question is answered by a date, a year, a time of day or a span, not by any number", () => {
    const q = "When does the depot open?";
    expect(expectedAnswerType(q)).toBe("time");
    for (const s of [
      "The depot opens at 7:30 in the morning.",
      "It opened in 1871.",
      "It opens Monday to Friday from 9am.",
      "Refunds follow within 14 days.",
    ])
      expect(holdsAnswerType("time", s, q)).toBe(true);
    expect(holdsAnswerType("time", "The depot has 2 gates and a blue door.", q)).toBe(false);
  });

  test("a how-many question needs a number the question does not already contain", () => {
    const q = "How many members does the 2024 plan include?";
    expect(expectedAnswerType(q)).toBe("number");
    expect(holdsAnswerType("number", "The 2024 plan includes ten members.", q)).toBe(true);
    expect(holdsAnswerType("number", "The 2024 plan is popular.", q)).toBe(false);
    // a year is a date, not a count
    expect(holdsAnswerType("number", "Members joined in 1990.", "How many members joined?")).toBe(false);
  });
});

describe("the answer gate", () => {
  const weights = weighted([
    ["lighthouse", 3],
    ["built", 2],
  ]);
  const passage = (text: string) => ({ text, source: "museum", headingPath: "" });

  test("one sentence must hold the question's words and the kind of answer asked for", () => {
    expect(answerability(weights, "When was the lighthouse built?", passage("The lighthouse was built in 1871."))).toBe(1);
    // the same words spread over two sentences, and no year: the topic is there, not the answer
    expect(answerability(weights, "When was the lighthouse built?", passage("The lighthouse is old. Ships were built nearby."))).toBe(0);
    expect(answerability(weights, "When was the lighthouse built?", passage("The lighthouse was built by hand."))).toBe(0);
  });

  test("one shared word is not an answer: it counts half", () => {
    const w = weighted([
      ["capital", 4],
      ["australia", 3],
    ]);
    // it counts half: never enough to pass on its own, whatever the share of the question it is (typed in lower
    // case, "australia" is a word like any other; a capital makes it a name, below)
    const lone = answerability(w, "what is the capital of australia?", passage("Capital! He made his money in a far country."));
    expect(lone).toBeCloseTo((4 / 7) * 0.5, 5);
    expect(answerability(w, "What is the capital of Australia?", passage("Canberra is the capital of Australia."))).toBe(1);
  });

  test("a name the question gives (a place, a code, a version) must be in the passage, or the passage is about something else", () => {
    const w = weighted([
      ["permit", 4],
      ["checks", 4],
      ["kentucky", 7],
    ]);
    const q = "How many permit checks did Kentucky have?";
    const kentucky = answerability(w, q, passage("Kentucky had 264,140 permit checks."));
    const ohio = answerability(w, q, passage("Ohio had 12,000 permit checks."));
    expect(kentucky).toBe(1);
    // the same words but the name: less than half of what they would earn, so the gate refuses it
    expect(ohio).toBeCloseTo((8 / 15) * 0.4, 5);
    // a yes/no question may name what the documents leave out: the answer is what they do say
    const days = weighted([
      ["counter", 4],
      ["open", 2],
      ["sunday", 6],
    ]);
    expect(answerability(days, "Is the counter open on Sunday?", passage("The counter is open Monday to Saturday from 8 am."))).toBeCloseTo(6 / 12, 5);
    // a code of letters and digits, and a version as written
    const study = weighted([
      ["enrolled", 4],
      ["a5346", 7],
    ]);
    expect(answerability(study, "how many were enrolled in a5346?", passage("43 participants were enrolled in each arm."))).toBeLessThan(0.4);
    const release = weighted([
      ["bash", 3],
      ["released", 6],
    ]);
    expect(answerability(release, "When was bash 5.3 released?", passage("Bash 5.2 was released in 2022."))).toBeCloseTo(0.4, 5);
    expect(answerability(release, "When was bash 5.2 released?", passage("Bash 5.2 was released in 2022."))).toBe(1);
  });

  test("a negated question needs a sentence that negates", () => {
    const w = weighted([
      ["plan", 1],
      ["include", 2],
      ["sso", 4],
    ]);
    expect(answerability(w, "Which plan does not include SSO?", passage("The Pro plan includes SSO."))).toBe(0);
    expect(answerability(w, "Which plan does not include SSO?", passage("The Basic plan does not include SSO."))).toBe(1);
  });

  test("a statement is judged on the whole passage, and rare shared words earn the evidence bonus", () => {
    const w = weighted([
      ["aldh1", 8],
      ["prognosis", 5],
      ["poorer", 7],
    ]);
    const s = answerability(
      w,
      "ALDH1 expression predicts poorer prognosis.",
      passage("ALDH1 was measured in 500 tumours. High levels meant a worse prognosis."),
    );
    expect(s).toBeCloseTo(13 / 20 + 0.15, 5);
  });
});

describe("a document card", () => {
  const card = {
    text: "Title: Minimum equipment list for the 737 MAX\nAuthor: Federal Aviation Administration\nCreated: 2020-08-06",
    source: "mel-notice",
    headingPath: CARD_HEADING,
  };
  test("answers a question about its document, not one that asks how to do what a fact word names", () => {
    // the words of "… minimum equipment list" and the question's verb, weighed as the gate weighs them
    const about = (verb: string) => new Map([...weighted([[verb, 2]]), [stem("minimum"), 3], [stem("equipment"), 3], [stem("list"), 2]]);
    expect(answerability(about("updated"), "When was the minimum equipment list updated?", card)).toBe(1);
    // "update" and "create" as verbs ask about a task: the card's fields answer nothing (at most 0.6 of a match)
    expect(answerability(about("update"), "What does it cost to update the minimum equipment list?", card)).toBeLessThanOrEqual(0.6);
    expect(answerability(about("create"), "How do I create a minimum equipment list?", card)).toBeLessThanOrEqual(0.6);
  });
});

describe("focus kinds", () => {
  test("a measured value answers for its noun, in digits or in words; a bare number does not", async () => {
    const { holdsFocusKind } = await import("../../src/rag/focus-kinds.ts");
    expect(holdsFocusKind("extent", "A standard repair takes two working days.", "How long does a repair take?")).toBe(true);
    expect(holdsFocusKind("extent", "followed by a 4-week post-treatment follow-up", "How long?")).toBe(true);
    expect(holdsFocusKind("dose", "Sitagliptin 100 mg/day, taken once.", "What is the dose?")).toBe(true);
    expect(holdsFocusKind("dose", "Store sitagliptin below 25 °C; packs of 28.", "What is the dose?")).toBe(false);
    expect(holdsFocusKind("money", "a salary of £ 4 a week", "How much did it pay?")).toBe(true);
    expect(holdsFocusKind("money", "37,499.96 DISTRICT DIRECTOR", "How much was paid?")).toBe(true);
    // a table's price column holds bare numbers: the field's label says they are money ("What does … cost?")
    expect(holdsFocusKind("money", "product: Cargo trailer; colour: black; price: 349", "What does the cargo trailer cost?")).toBe(true);
    expect(holdsFocusKind("money", "product: Cargo trailer; weight: 349", "What does the cargo trailer cost?")).toBe(false);
    expect(holdsFocusKind("range", "a random integer between 0 and 32767", "What range?")).toBe(true);
    expect(holdsFocusKind("age", "Posting Date: June 25, 2008", "How old is Alice?")).toBe(false);
  });
});

describe("times in words", () => {
  test("a span counted in words answers a when-question", () => {
    const q = "When do orders leave the warehouse?";
    expect(holdsAnswerType("time", "Orders leave the warehouse within two working days.", q)).toBe(true);
    expect(holdsAnswerType("time", "Orders leave the warehouse in a few days.", q)).toBe(true);
    expect(holdsAnswerType("time", "Orders leave the warehouse by truck.", q)).toBe(false);
  });
});

describe("a first name", () => {
  test("is not met by 'in the first place': the name itself must be spoken of", () => {
    const w = weighted([
      ["mrs", 4],
      ["hudson", 6],
      ["first", 3],
      ["name", 2],
    ]);
    const q = "What is Mrs. Hudson's first name?";
    const place = { text: "In the first place, Mrs. Hudson lit the fire.", source: "stories", headingPath: "" };
    const named = { text: "Mrs. Hudson's first name is Martha.", source: "stories", headingPath: "" };
    expect(answerability(w, q, named)).toBe(1);
    expect(answerability(w, q, place)).toBeLessThan(0.37);
  });
});

describe("rows", () => {
  const w = weighted([
    ["primary", 5],
    ["endpoint", 7],
    ["study", 5],
  ]);
  const q = "What is the primary endpoint of the study?";
  test("a form's row is found by its key: no other row has 'Study Endpoints'", () => {
    // as a DOCX protocol's summary table reads (60329.docx)
    const form =
      "Secondary objectives are listed in section 1.3.\n| \nStudy Endpoints: | ; Primary, Immunogenicity: | Change in sCD14 from baseline to week 16. (Section 9.2.1); Secondary, Immunogenicity: | Change in CD4 count\ninflammatory biomarkers CXCL10, sCD163, IL-6.";
    expect(answerability(w, q, { text: form, source: "protocol", headingPath: "" })).toBe(1);
  });
  test("a table's row is found by its values, not by the column names every row repeats", () => {
    const table = "Study: 12; Endpoint: primary; Site: Lyon\nStudy: 13; Endpoint: secondary; Site: Turin";
    const byValue = answerability(w, q, { text: table, source: "sites", headingPath: "" });
    const keysOnly = answerability(w, q, {
      text: "Study Endpoints: 3; Primary: 4\nStudy Endpoints: 5; Primary: 6",
      source: "sites",
      headingPath: "",
    });
    expect(byValue).toBe(1);
    expect(keysOnly).toBe(0.5);
  });
});

describe("abbreviations the passages define", () => {
  const passage = (text: string) => ({ text, source: "notice", headingPath: "" });
  const defined = "The FAA issued an Airworthiness Directive (AD) for the Flight Control Computer (FCC).";
  test("a question in long form is answered by a sentence using the abbreviation, and the other way round", () => {
    const long = weighted([
      ["flight", 3],
      ["control", 3],
      ["computer", 3],
      ["software", 4],
    ]);
    const q = "Which software must the flight control computer run?";
    expect(answerability(long, q, passage(`${defined}\nInstall software version P12.1.2 on the FCC.`))).toBe(1);
    // without the definition, "FCC" is only three letters
    expect(answerability(long, q, passage("Install software version P12.1.2 on the FCC."))).toBeLessThan(0.5);
    const short = weighted([
      ["fcc", 6],
      ["software", 4],
    ]);
    expect(answerability(short, "Which software must the FCC run?", passage(`${defined}\nInstall software version P12.1.2 on the flight control computer.`))).toBe(1);
  });
});
