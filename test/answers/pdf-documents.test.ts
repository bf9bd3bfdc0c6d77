/**
 * Issue 18, PDFs as people read them, over HTTP on a real server with the real files of ../shared/data/docs: a
 * table cell answered with its row and its column, a running footer answered from the document card instead of
 * repeating on every page, a definition entry found with its term, and a transcript without its line numbers.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { CLOSEST_PASSAGE } from "../../src/llm/backends/extractive.backend.ts";
import { sharedDoc } from "../helpers/paths.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(120_000);

let srv: TestServer;
let key = "";

async function upload(path: string): Promise<void> {
  const form = new FormData();
  form.append("file", new Blob([await Bun.file(sharedDoc(path)).arrayBuffer()]), path.split("/").at(-1) ?? path);
  const r = await fetch(`${srv.url}/api/v1/documents`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
  expect(r.status).toBe(200);
}

interface Answer {
  text: string;
  sources: string[];
  chunks: { text: string; source: string; heading_path?: string; page_start?: number }[];
  refused: boolean;
  confidence: "high" | "low" | null;
}

async function ask(question: string, history: { role: "user" | "assistant"; content: string }[] = []): Promise<Answer> {
  const r = await fetch(`${srv.url}/api/v1/chat/completions-with-sources`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "any", messages: [...history, { role: "user", content: question }] }),
  });
  expect(r.status).toBe(200);
  const body = (await r.json()) as Omit<Answer, "text"> & { choices: { message: { content: string } }[] };
  return {
    text: body.choices[0]?.message.content ?? "",
    sources: body.sources,
    chunks: body.chunks,
    refused: body.refused,
    confidence: body.confidence,
  };
}

/** Every stored chunk of one document. */
async function chunksOf(source: string) {
  const all = await srv.services.store.repos.chunkIndex.getChunks(Array.from({ length: 3000 }, (_, i) => i + 1));
  return all.filter((c) => c.source === source);
}

beforeAll(async () => {
  srv = await startTestServer({ DOCCHAT_TRAIN_WAIT_MS: "90000" });
  key = (await srv.seed()).apiKey;
  await upload("pdf/tables/nics-background-checks-2015-11.pdf");
  await upload("pdf/text/federal-register-2020-17221.pdf");
  await upload("pdf/text/debian-bash-doc-bash.pdf");
  await upload("pdf/text/scotus-transcript-p1.pdf");
  // a German document too: the deployment then splits unknown German compounds into words it holds
  const form = new FormData();
  const german =
    "Kaution und Mietvertrag\n\nDer Mieter zahlt bei Vertragsbeginn eine Kaution in Höhe von drei Monatsmieten. Die Kaution wird auf einem separaten Konto angelegt und nach dem Auszug innerhalb von sechs Monaten zurückgezahlt. Die Wartezeit (Timeout) beträgt zwei Wochen.";
  form.append("file", new Blob([german]), "mietvertrag.txt");
  const r = await fetch(`${srv.url}/api/v1/documents`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
  expect(r.status).toBe(200);
});
afterAll(() => srv.stop());

describe("tables in PDFs", () => {
  test("a cell of a dense table is found and quoted with its row label and its column", async () => {
    const a = await ask("How many handgun checks were there in Pennsylvania?");
    expect(a.sources).toEqual(["nics-background-checks-2015-11"]);
    expect(a.text).toContain("Pennsylvania");
    expect(a.text).toContain("Handgun: 62,752");
    const row = a.chunks.flatMap((c) => c.text.split("\n")).find((l) => l.startsWith("State / Territory: Pennsylvania;"));
    expect(row).toContain("; Handgun: 62,752;");
  });

  test("a row of a cost table inside a three-column notice answers with its column's name", async () => {
    const a = await ask("What is the estimated cost on U.S. operators of the AOA sensor system test?");
    expect(a.sources).toEqual(["federal-register-2020-17221"]);
    expect(a.text).toContain("Cost on U.S. operators: $248,200");
    expect(a.text).toContain("AOA sensor system test");
  });

  test("'what does it cost …' asks for an amount: the sentence with the estimate in dollars answers", async () => {
    const a = await ask("Under the 737 MAX proposal, what does the FAA estimate it costs each airline to update its minimum equipment list?");
    // (the sentence that says what the estimate is per, without the amount, no longer comes first)
    expect(a.text.replace(CLOSEST_PASSAGE, "")).toStartWith("Therefore, the FAA estimates the average total cost per operator to be $7,650");
  });
});

describe("counts", () => {
  test("'How many planes …' is answered by the sentence that counts them ('73 airplanes'), not one that names the planes", async () => {
    const a = await ask("How many planes would the proposed 737 MAX airworthiness directive affect in the US?");
    expect(a.sources).toEqual(["federal-register-2020-17221"]);
    expect(a.text.replace(CLOSEST_PASSAGE, "")).toStartWith("The FAA estimates that this proposed AD affects 73 airplanes of U.S. registry.");
  });
});

describe("running headers and footers", () => {
  test("are gone from the pages' text and answer from the document card", async () => {
    const bash = await chunksOf("debian-bash-doc-bash");
    expect(bash.length).toBeGreaterThan(500);
    expect(bash.filter((c) => /GNU Bash 5\.2|General Commands Manual/.test(c.text)).map((c) => c.headingPath)).toEqual(["Document card"]);
    const fr = await chunksOf("federal-register-2020-17221");
    expect(fr.filter((c) => c.text.includes("Federal Register / Vol. 85")).map((c) => c.headingPath)).toEqual(["Document card"]);
    const a = await ask("Which version of Bash does the bash manual page describe?");
    expect(a.text).toContain("GNU Bash 5.2");
  });

  test("a card's fields answer questions about the document ('Created' for published), and nothing else", async () => {
    const published = await ask("On what date was the Federal Register notice about the Boeing 737 MAX airworthiness directive published?");
    expect(published.text).toContain("August 6, 2020");
    expect(published.confidence).toBe("high");
    // the card's title holds every word of a question about the table's figures, but none of its figures: the totals
    // row of the table the heading names answers, although every row repeats "Totals"
    const total = await ask("How many NICS background checks were there in total in November 2015?");
    expect(total.text).toBe("State / Territory: Totals\nTotals: 2,236,457");
    expect(total.confidence).toBe("high");
  });

  test("a name in capitals the documents never mention ('HISTTIMEOUT') is refused, not split into a word they have", async () => {
    expect((await ask("What is the default value of HISTTIMEOUT?")).refused).toBe(true);
    expect((await ask("What is the default value of HISTSIZE?")).text).toContain("500");
  });

  test("a version the question names must be the one the document speaks of", async () => {
    expect((await ask("When is bash 5.3 going to be released?")).refused).toBe(true);
    expect((await ask("Which version of Bash does the manual describe, 5.2?")).text).toContain("GNU Bash 5.2");
  });
});

describe("definition entries", () => {
  test("an option of a builtin is found under its heading path and answered with its term", async () => {
    const a = await ask("What does set -o pipefail do?");
    expect(a.sources).toEqual(["debian-bash-doc-bash"]);
    expect(a.text).toContain("(set -o pipefail): If set, the return value of a pipeline is the value of the last (rightmost) command");
    const entry = a.chunks.find((c) => c.heading_path?.endsWith("> -o option-name > pipefail"));
    expect(entry?.heading_path).toStartWith("SHELL BUILTIN COMMANDS > set [-abefhkmnptuvxBCEHPT]");
  });

  test("'What does OLDPWD hold?' is answered by the entry: the verb only asks what it is", async () => {
    const a = await ask("What does OLDPWD hold?");
    expect(a.refused).toBe(false);
    expect(a.text).toStartWith("OLDPWD: The previous working directory as set by the cd command.");
  });

  test("an entry's sentences speak of it by its heading: 'A value of ignoreboth …' under HISTCONTROL", async () => {
    const a = await ask("What does setting HISTCONTROL to ignoreboth do?");
    expect(a.text).toStartWith("A value of ignoreboth is shorthand for ignorespace and ignoredups.");
    expect(a.confidence).toBe("high");
  });
});

describe("symbols", () => {
  test("a special parameter asked as '$!' finds its entry '!', and '$$' its entry '$'", async () => {
    const bang = await ask("What does $! expand to in bash?");
    expect(bang.text).toStartWith("!: Expands to the process ID of the job most recently placed into the background");
    const dollar = await ask("What does $$ expand to?");
    expect(dollar.text).toStartWith("$: Expands to the process ID of the shell.");
  });

  test("a follow-up that names only a symbol ('And what about $! ?') is answered from that symbol's entry", async () => {
    const history = [
      { role: "user" as const, content: "What does $? expand to in bash?" },
      { role: "assistant" as const, content: "?: Expands to the exit status of the most recently executed foreground pipeline." },
    ];
    expect((await ask("And what about $! ?", history)).text).toContain("most recently placed into the background");
  });

  test("a one-letter option is answered from its own definition first, and '-e' is not '-E'", async () => {
    const a = await ask("What does the -e option to the set builtin do?");
    expect(a.text).toStartWith("-e (set -e): Exit immediately if a pipeline");
    expect(a.text).not.toContain("-E (set -E)");
  });
});

describe("abbreviations", () => {
  test("a sentence using an abbreviation the document defines ('Airworthiness Directive (AD)') says its long form", async () => {
    const a = await ask("By what date must the FAA receive comments on the proposed 737 MAX airworthiness directive?");
    expect(a.text).toContain("The FAA must receive comments on this proposed AD by September 21, 2020.");
    expect(a.confidence).toBe("high");
  });
});

describe("transcripts", () => {
  test("the line numbers in the margin are not part of the text, and a wrapped appearance reads whole", async () => {
    const chunks = await chunksOf("scotus-transcript-p1");
    expect(chunks.some((c) => /(^|\n)\s*(\d{1,2})\s*(\n|$)/.test(c.text))).toBe(false);
    const a = await ask("Who appeared on behalf of the Respondent in Knowles v. Mirzayance?");
    expect(a.text).toContain("CHARLES M. SEVILLA, ESQ., San Diego, Cal.; on behalf of the Respondent.");
  });
});
