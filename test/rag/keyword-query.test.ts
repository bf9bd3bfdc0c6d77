import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { searchTerms } from "../../src/rag/keyword-query.ts";
import { queryTerms } from "../../src/rag/terms.ts";
import { fts5Match } from "../../src/store/sqlite/fts5-match.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/** What the SQLite driver hands FTS5 for a visitor's question. */
const buildMatchQuery = (text: string) => fts5Match(queryTerms(text));

describe("the FTS5 expression of a question's terms", () => {
  test("quotes each content word and ORs them, dropping stopwords and question fillers", () => {
    expect(buildMatchQuery("What is the refund policy for annual plans?")).toBe('"refund" OR "policy" OR "annual" OR "plans"');
  });

  test("turns FTS5 operators typed by a visitor into plain quoted words", () => {
    const q = buildMatchQuery('refund NEAR(policy) AND text:"x" OR -plans* ^annual') ?? "";
    // single letters ("x") are dropped like contraction debris
    expect(q).toBe('"refund" OR "near" OR "policy" OR "text" OR "plans" OR "annual"');
  });

  test("returns null when nothing searchable is left", () => {
    expect(buildMatchQuery("What is it?")).toBeNull();
    expect(buildMatchQuery("?!* ()")).toBeNull();
  });

  test("drops the word after 'how' in how-long / how-much questions", () => {
    expect(buildMatchQuery("How long are backups kept?")).toBe('"backups" OR "kept"');
  });
});

describe("keyword search with hostile input", () => {
  let server: TestServer;
  let deploymentId: string;
  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = (await server.seed()).deploymentId;
    const bytes = new TextEncoder().encode("Refund policy\n\nAnnual plans can be refunded within 30 days.");
    await server.services.documents.push({ deploymentId, name: "policy.txt", bytes, train: true, replace: true }, { waitMs: 20_000 });
  });
  afterAll(() => server.stop());

  test("never reaches SQLite as FTS5 syntax: every attempt runs and finds only real words", async () => {
    const hostile = [
      '"',
      "NEAR(",
      "refund*",
      "text:annual",
      "a AND OR NOT",
      "(((",
      "^refund",
      "'; DROP TABLE chunks; --",
      "refund\u0000annual",
      "ünïcödé refünd",
    ];
    for (const query of hostile) {
      const r = await server.services.retriever.retrieve({ deploymentId, query, topK: 5 });
      expect(Array.isArray(r.hits)).toBe(true);
    }
    const r = await server.services.retriever.retrieve({ deploymentId, query: "refund*", topK: 5 });
    expect(r.hits[0]?.source).toBe("policy");
  });

  test("the SQLite store quotes every term itself: operators and quotes passed as terms are plain words", async () => {
    for (const terms of [['"'], ["near("], ["refund", "OR", "*"], ['a" OR "b'], ["text:annual"], [""]]) {
      const hits = await server.services.repos.chunkIndex.keywordSearch(deploymentId, terms, 5);
      expect(Array.isArray(hits)).toBe(true);
    }
    expect((await server.services.repos.chunkIndex.keywordSearch(deploymentId, ["refund", 'a" OR "b'], 5)).length).toBe(1);
  });
});

describe("searchTerms", () => {
  const df = new Map([
    ["cells", 9000],
    ["tumour", 40],
    ["apoptosis", 12],
    ["increase", 8000],
    ["mice", 3000],
  ]);
  const terms = ["cells", "tumour", "apoptosis", "increase", "mice"];

  test("keeps the rarest words, in the question's order, within the row budget", () => {
    expect(searchTerms(terms, df, { maxTerms: 12, maxRows: 5000, minTerms: 2 })).toEqual(["tumour", "apoptosis", "mice"]);
  });

  test("leaves out terms the deployment does not hold: they match nothing and would take a rare word's place", () => {
    expect(searchTerms(["unheard", ...terms], df, { maxTerms: 2, maxRows: 1e9, minTerms: 1 })).toEqual(["tumour", "apoptosis"]);
  });

  test("keeps at least minTerms and at most maxTerms", () => {
    expect(searchTerms(terms, df, { maxTerms: 12, maxRows: 0, minTerms: 3 })).toEqual(["tumour", "apoptosis", "mice"]);
    expect(searchTerms(terms, df, { maxTerms: 1, maxRows: 1e9, minTerms: 1 })).toEqual(["apoptosis"]);
  });
});
