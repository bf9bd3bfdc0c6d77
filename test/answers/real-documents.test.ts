/**
 * Issue 18: answers on real documents, over HTTP on a real server, one test per class of failure the issue names:
 * a Gutenberg book's header and licence, the document card, a table cell with its row and column, a definition
 * entry with its term, follow-ups resolved into readable questions, on-topic refusals by focus, and honest
 * uncertainty. Documents are the real files of ../shared/data/docs (by path) and test/fixtures.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { CLOSEST_PASSAGE } from "../../src/llm/backends/extractive.backend.ts";
import { fixture, sharedDoc } from "../helpers/paths.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(60_000);

let srv: TestServer;
let key = "";

async function upload(path: string, name: string): Promise<void> {
  const form = new FormData();
  form.append("file", new Blob([await Bun.file(path).arrayBuffer()]), name);
  const r = await fetch(`${srv.url}/api/v1/documents`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
  expect(r.status).toBe(200);
}

interface Answer {
  text: string;
  sources: string[];
  refused: boolean;
  confidence: "high" | "low" | null;
  searchQuery: string;
}

async function ask(question: string, history: { role: "user" | "assistant"; content: string }[] = []): Promise<Answer> {
  const r = await fetch(`${srv.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "any", messages: [...history, { role: "user", content: question }] }),
  });
  expect(r.status).toBe(200);
  const body = (await r.json()) as {
    choices: { message: { content: string } }[];
    sources: string[];
    refused: boolean;
    confidence: "high" | "low" | null;
    search_query: string;
  };
  return {
    text: body.choices[0]?.message.content ?? "",
    sources: body.sources,
    refused: body.refused,
    confidence: body.confidence,
    searchQuery: body.search_query,
  };
}

beforeAll(async () => {
  srv = await startTestServer({ DOCCHAT_TRAIN_WAIT_MS: "60000" });
  key = (await srv.seed()).apiKey;
  await upload(sharedDoc("txt/gutenberg-11-alice.txt"), "gutenberg-11-alice.txt");
  await upload(sharedDoc("csv/csvkit/FY09_EDU_Recipients_by_State.csv"), "FY09_EDU_Recipients_by_State.csv");
  await upload(sharedDoc("csv/clevercsv/imdb.csv"), "imdb.csv");
  await upload(sharedDoc("docx/poi/61787.docx"), "61787.docx");
  await upload(sharedDoc("docx/poi/60329.docx"), "60329.docx");
  await upload(fixture("answers/shell-options.txt"), "shell-options.txt");
  await upload(sharedDoc("pdf/tables/150109DSP-Milw-505-90D.pdf"), "150109DSP-Milw-505-90D.pdf");
  await upload(sharedDoc("csv/csvkit/acs2012_5yr_population.csv"), "acs2012_5yr_population.csv");
  await upload(sharedDoc("pdf/text/crazyones.pdf"), "crazyones.pdf");
  await upload(sharedDoc("txt/gutenberg-1661-sherlock-holmes.txt"), "gutenberg-1661-sherlock-holmes.txt");
});
afterAll(() => srv.stop());

describe("a Project Gutenberg book", () => {
  test("its header becomes the document card: the author and the posting date are answered from it", async () => {
    const author = await ask("Who is the author of Alice's Adventures in Wonderland?");
    expect(author.text).toContain("Lewis Carroll");
    expect(author.sources).toEqual(["gutenberg-11-alice"]);
    const posted = await ask("When was the Project Gutenberg ebook of Alice's Adventures in Wonderland posted?");
    expect(posted.text).toContain("June 25, 2008");
    expect(posted.text).not.toMatch(/START OF|END OF/);
  });

  test("its START/END lines and licence are not part of the book", async () => {
    const chunks = await srv.services.store.repos.chunkIndex.getChunks(Array.from({ length: 400 }, (_, i) => i + 1));
    const alice = chunks.filter((c) => c.source === "gutenberg-11-alice");
    expect(alice.length).toBeGreaterThan(50);
    expect(alice.some((c) => /PROJECT GUTENBERG EBOOK|Project Gutenberg License|Project Gutenberg-tm/i.test(c.text))).toBe(false);
    // chapters are headings: a passage carries its chapter in its heading path
    expect(alice.some((c) => c.headingPath.startsWith("CHAPTER I. Down the Rabbit-Hole"))).toBe(true);
  });
});

describe("a novel's irregular verbs", () => {
  test("'What did the bride give Holmes?' finds the sentence where she 'gave' it", async () => {
    const a = await ask("What did the bride give Holmes?");
    expect(a.text).toStartWith("The bride gave me a sovereign");
    expect(a.confidence).toBe("high");
  });
});

describe("a novel: who is asked about, and what", () => {
  test("a sentence that only names the person asked about is not the answer: what he was paid to copy is", async () => {
    const a = await ask("What was Jabez Wilson paid to copy out by hand?");
    expect(a.text).toContain("copying out the _Encyclopædia Britannica_");
    expect(a.text).not.toContain("good-bye, Mr. Jabez Wilson");
  });

  test("a number that names something is asked by what it names: a telephone number the book never gives is refused", async () => {
    const phone = await ask("What is Sherlock Holmes's telephone number?");
    expect(phone.refused).toBe(true);
    // one the documents do give is answered with it
    const protocol = await ask("What is the protocol number of the sitagliptin study?");
    expect(protocol.text).toContain("Protocol No. (Document ID): | A5346 (12028)");
  });

  test("'What sweets …?' is answered by the sweets the book names ('comfits'), though it never calls them sweets", async () => {
    const a = await ask("What sweets did Alice hand out to everyone as prizes after the race?");
    expect(a.refused).toBe(false);
    expect(a.text).toContain("pulled out a box of comfits");
    // a label asked for must still be there: the book names no principal investigator
    expect((await ask("Who is the principal investigator of study A5346?")).refused).toBe(true);
  });
});

describe("document cards", () => {
  test("a DOCX's core properties and its title are searchable: its title heads every section", async () => {
    const a = await ask("How long should the personal worldview essay be?");
    expect(a.text).toContain("1200 words");
    expect(a.sources).toEqual(["61787"]);
  });

  test("a PDF's dateline under its title is the card's date, before the file's own creation date", async () => {
    const a = await ask("When was The Crazy Ones written?");
    expect(a.sources).toEqual(["crazyones"]);
    expect(a.text).toContain("Date: October 14, 1998");
    expect(a.text.indexOf("October 14, 1998")).toBeLessThan(a.text.indexOf("Created") >>> 0);
  });
});

describe("forms and protocols", () => {
  test("a form's row is found by its key ('Study Endpoints'), and a study named once in its protocol is still the one asked about", async () => {
    const endpoint = await ask("What is the primary endpoint of study A5346?");
    expect(endpoint.text).toContain("Change in sCD14 from baseline to week 16");
    const perArm = await ask("How many participants will be enrolled in each arm of A5346?");
    expect(perArm.text).toContain("43 participants will be enrolled in each arm");
  });
});

describe("a form's fields ('Label: value' lines of a PDF report)", () => {
  test("a field line is answered as a field, not hidden as a heading: the case number, the date, the age", async () => {
    const tracking = await ask("What is the case tracking number?");
    expect(tracking.text).toStartWith("Case Tracking Number: 150109-DSP-Milw-505");
    expect(tracking.sources).toEqual(["150109DSP-Milw-505-90D"]);
    // a date is a point in time: "his 5 year-old sister" and "ch. 938" are no date
    expect((await ask("What was the date of the incident?")).text).toBe("Date of Incident: 01/09/2015");
    // the field labelled with what is asked ("Age") leads, not the sister's age in a sentence
    const age = await ask("How old was the child at the time of the incident?");
    expect(age.text).toStartWith("Age: 1 Year 9 Months");
    // the field is the answer: the sister's age in another passage does not join it
    expect(age.text).not.toContain("sister");
    // "Which agency handled …": the noun after "which" is what is asked, and the field under that label answers
    expect((await ask("Which agency handled the case?")).text).toContain("Agency: Bureau of Milwaukee Child Welfare");
  });

  test("a CSV column named in snake_case is found by its words ('margin of error' for margin_of_error)", async () => {
    const a = await ask("What is the margin of error for Banner County?");
    expect(a.refused).toBe(false);
    expect(a.text).toContain("name: Banner County, NE");
    expect(a.text).toContain("margin_of_error: 73");
  });
});

describe("tables and CSV rows", () => {
  test("a cell is answered with its row label and its column, not the whole row", async () => {
    const a = await ask("How many Montgomery GI Bill active duty recipients were there in Arizona?");
    expect(a.text).toContain("ARIZONA");
    expect(a.text).toContain("Montgomery GI Bill-Active Duty: 26,822");
    expect(a.text).not.toContain("TOTAL");
    expect(a.text.split("\n").length).toBeLessThanOrEqual(4);
  });

  test("a question about a column the table does not have is refused, not answered with the row", async () => {
    const a = await ask("Who directed Metropolis (1927)?");
    expect(a.refused).toBe(true);
  });
});

describe("definition entries", () => {
  test("an option's answer leads with its term", async () => {
    const a = await ask("How do I stop a shell from overwriting the history file when it exits?");
    expect(a.text.startsWith("histappend: If set, the history list is appended")).toBe(true);
    expect(a.sources).toEqual(["shell-options"]);
  });

  test("an option named by its words written together is found by those words ('fails' for pipefail), and 'not only' asks for no negation", async () => {
    const a = await ask("How can I make a pipeline report failure when any command in it fails, not only the last one?");
    expect(a.text).toContain("pipefail: If set, the return value of a pipeline");
    expect(a.text).not.toContain("errexit");
  });
});

describe("follow-ups without a model", () => {
  test("an elliptic question changes one slot of the previous one and stays a readable question", async () => {
    const history = [
      { role: "user" as const, content: "How many Montgomery GI Bill active duty recipients were there in Arizona?" },
      { role: "assistant" as const, content: "Arizona had 26,822." },
    ];
    const a = await ask("And in Texas?", history);
    expect(a.searchQuery).toBe("How many Montgomery GI Bill active duty recipients were there in Texas?");
    expect(a.text).toContain("TEXAS");
    expect(a.text).not.toContain("ARIZONA");
  });

  test("what an elliptic question changed must be answered: a drug the documents never mention is refused", async () => {
    const history = [
      { role: "user" as const, content: "What dose of sitagliptin is given in study A5346?" },
      { role: "assistant" as const, content: "100 mg/day." },
    ];
    const a = await ask("And of metformin?", history);
    expect(a.searchQuery).toBe("What dose of metformin is given in study A5346?");
    expect(a.refused).toBe(true);
  });
});

describe("the gate", () => {
  test("a question whose focus the documents never mention is refused although its other words match", async () => {
    expect((await ask("Who is the principal investigator of study A5346?")).refused).toBe(true);
    expect((await ask("How old is Alice in Alice's Adventures in Wonderland?")).refused).toBe(true);
    // the same subject, asked for what the document does say, is answered
    const dose = await ask("What dose of sitagliptin is given in the A5346 trial?");
    expect(dose.text).toContain("100 mg");
    expect(dose.confidence).toBe("high");
  });

  test("a weak match says it is only the closest passage instead of looking like an answer", async () => {
    const other = await srv.seed();
    const form = new FormData();
    form.append("file", new Blob([await Bun.file(fixture("answers/harbour.txt")).arrayBuffer()]), "harbour.txt");
    const up = await fetch(`${srv.url}/api/v1/documents`, {
      method: "POST",
      headers: { authorization: `Bearer ${other.apiKey}` },
      body: form,
    });
    expect(up.status).toBe(200);
    const askOther = async (question: string) => {
      const r = await fetch(`${srv.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${other.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "any", messages: [{ role: "user", content: question }] }),
      });
      return (await r.json()) as { choices: { message: { content: string } }[]; confidence: string | null; refused: boolean };
    };
    const clear = await askOther("When does the harbour museum open?");
    expect(clear.confidence).toBe("high");
    expect(clear.choices[0]?.message.content).toBe("The harbour museum opens at 10am every day except Mondays.");
    // the museum's opening time is there, the gift shop's is not: the nearest passage is offered as such
    const near = await askOther("When does the harbour museum gift shop open?");
    expect(near.refused).toBe(false);
    expect(near.confidence).toBe("low");
    expect(near.choices[0]?.message.content).toBe(`${CLOSEST_PASSAGE}The harbour museum opens at 10am every day except Mondays.`);
  });
});
