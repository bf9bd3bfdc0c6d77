/**
 * One contract, two engines: the chunk index and term statistics retrieval reads (ChunkIndex, TermStats) behave
 * the same on SQLite (FTS5 per deployment + sqlite-vec) and on PostgreSQL (own BM25 postings + pgvector, a real
 * throwaway cluster). Then the two are compared head to head on real abstracts: same BM25 scores, same hits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { loadScifact, passageText } from "../../bench/lib/scifact.dataset.ts";
import { createRetriever } from "../../src/rag/retrieve.ts";
import type { NewChunk } from "../../src/store/contract/index.ts";
import { searched, withTerms } from "../helpers/analyzed.ts";
import { ENGINES, type IndexDriver, openDriver } from "../helpers/index-drivers.ts";

const DIM = 8;
const chunk = (text: string, o: Partial<NewChunk> = {}): NewChunk =>
  withTerms({
    ord: 0,
    source: "doc",
    text,
    headingPath: "",
    tokenCount: Math.ceil(text.length / 4),
    textHash: createHash("sha256").update(text).digest("hex"),
    ...o,
  });
/** A unit vector pointing mostly along axis `axis`, tilted by `tilt` towards the next axis. */
const unit = (axis: number, tilt = 0): Float32Array => {
  const v = new Float32Array(DIM);
  v[axis % DIM] = 1;
  v[(axis + 1) % DIM] = tilt;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const search = async (d: IndexDriver, dep: string, words: string[], limit = 10) =>
  d.index.keywordSearch(dep, words.flatMap(searched), limit);

describe.each(ENGINES)("chunk index contract on %s", (engine) => {
  let d: IndexDriver;
  beforeAll(async () => {
    d = await openDriver(engine);
    await d.createVectorTable(DIM);
  }, 60_000);
  afterAll(() => d.close());

  test("keyword search ranks the deployment's chunks by BM25, best first, as negative scores", async () => {
    const dep = await d.deployment();
    await d.addDocument(dep, [
      chunk("Annual plans can be refunded within 30 days. Refund requests go to billing; a refund takes five days.", { source: "policy" }),
      chunk("The support desk is open Monday to Friday.", { source: "hours" }),
      chunk("A refund is not possible for monthly plans.", { source: "monthly" }),
    ]);
    const hits = await search(d, dep, ["refund"]);
    expect(hits).toHaveLength(2);
    const rows = await d.index.getChunks(hits.map((h) => h.id));
    const byId = new Map(rows.map((r) => [r.id, r.source]));
    expect(hits.map((h) => byId.get(h.id))).toEqual(["policy", "monthly"]);
    expect(hits[0]?.score).toBeLessThan(hits[1]?.score as number);
    expect(hits.every((h) => h.score < 0)).toBe(true);
  });

  test("a word in the heading path counts for less than the same word in the text", async () => {
    const dep = await d.deployment();
    const { ids } = await d.addDocument(dep, [
      chunk("Storage pricing for teams.", { headingPath: "Plans" }),
      chunk("Pricing for teams.", { headingPath: "Storage" }),
    ]);
    const hits = await search(d, dep, ["storage"]);
    expect(hits.map((h) => h.id)).toEqual(ids);
  });

  test("a passage's stop words count in its length: the same words among many function words rank lower", async () => {
    const dep = await d.deployment();
    const { ids } = await d.addDocument(dep, [
      // written first: were its function words not counted, it would tie with the next and come first
      chunk("As to the refund, it is for you to ask, and then it is up to them."),
      chunk("Refund: ask."),
      chunk("The support desk is open Monday to Friday."),
      chunk("Invoices are sent by email."),
    ]);
    const hits = await search(d, dep, ["refund"]);
    expect(hits.map((h) => h.id)).toEqual([ids[1] as number, ids[0] as number]);
    expect(hits[0]?.score).toBeLessThan(hits[1]?.score as number);
  });

  test("accents fold, case folds and underscores join a word, as FTS5's unicode61 tokenizer does", async () => {
    const dep = await d.deployment();
    const { ids } = await d.addDocument(dep, [chunk("Le CAFÉ crème is served; set user_id in the header.")]);
    expect((await search(d, dep, ["cafe"])).map((h) => h.id)).toEqual(ids);
    expect((await search(d, dep, ["creme"])).map((h) => h.id)).toEqual(ids);
    expect((await search(d, dep, ["user_id"])).map((h) => h.id)).toEqual(ids);
    expect(await search(d, dep, ["user"])).toEqual([]);
  });

  test("document frequencies and the chunk total count this deployment's chunks only; absent words are 0", async () => {
    const dep = await d.deployment();
    const other = await d.deployment();
    await d.addDocument(dep, [chunk("alpha beta"), chunk("alpha gamma alpha")]);
    await d.addDocument(other, [chunk("alpha delta"), chunk("alpha"), chunk("beta")]);
    const df = await d.stats.documentFrequencies(dep, ["alpha", "beta", "delta", "zeta"]);
    expect(Object.fromEntries(df)).toEqual({ alpha: 2, beta: 1, delta: 0, zeta: 0 });
    expect(await d.stats.totalChunks(dep)).toBe(2);
    expect(await d.stats.totalChunks(other)).toBe(3);
    expect(await d.stats.totalChunks(await d.deployment())).toBe(0);
  });

  test("another deployment's documents move neither this deployment's scores nor its statistics", async () => {
    const dep = await d.deployment();
    await d.addDocument(dep, [
      chunk("Huguenots settled in the Cape in 1688."),
      chunk("The Cape colony grew wine."),
      chunk("Settlers arrived by ship."),
    ]);
    const before = {
      hits: await search(d, dep, ["huguenots", "cape"]),
      df: await d.stats.documentFrequencies(dep, ["cape"]),
      n: await d.stats.totalChunks(dep),
    };
    const noisy = await d.deployment();
    await d.addDocument(
      noisy,
      Array.from({ length: 40 }, (_, i) =>
        chunk(`Cape cape huguenots ${i} filler words to change the average length a great deal more than before`),
      ),
    );
    const after = {
      hits: await search(d, dep, ["huguenots", "cape"]),
      df: await d.stats.documentFrequencies(dep, ["cape"]),
      n: await d.stats.totalChunks(dep),
    };
    expect(after).toEqual(before);
    expect(before.hits).toHaveLength(2);
  });

  test("deleting a document removes its chunks from keyword search, vector search and the statistics", async () => {
    const dep = await d.deployment();
    const keep = await d.addDocument(dep, [chunk("zebra crossing", { vector: unit(0) })]);
    const gone = await d.addDocument(dep, [
      chunk("zebra stripes zebra", { vector: unit(0, 0.1) }),
      chunk("lion pride", { vector: unit(1) }),
    ]);
    expect(await d.counts(gone.documentId)).toEqual({ chunks: 2, fts: 2, vec: 2 });
    await d.deleteDocument(gone.documentId);
    expect(await d.counts(gone.documentId)).toEqual({ chunks: 0, fts: 0, vec: 0 });
    expect((await search(d, dep, ["zebra", "lion"])).map((h) => h.id)).toEqual(keep.ids);
    expect((await d.index.vectorSearch(dep, unit(1), 5)).map((h) => h.id)).toEqual(keep.ids);
    expect(Object.fromEntries(await d.stats.documentFrequencies(dep, ["zebra", "lion"]))).toEqual({ zebra: 1, lion: 0 });
    expect(await d.stats.totalChunks(dep)).toBe(1);
  });

  test("vector search returns the deployment's k nearest by cosine, closest first, even when another deployment holds closer vectors", async () => {
    const dep = await d.deployment();
    const crowd = await d.deployment();
    await d.addDocument(
      crowd,
      Array.from({ length: 300 }, (_, i) => chunk(`crowd ${i}`, { vector: unit(3, i / 1000) })),
    );
    const { ids } = await d.addDocument(dep, [
      chunk("far", { vector: unit(5) }),
      chunk("near", { vector: unit(3, 0.5) }),
      chunk("nearest", { vector: unit(3, 0.1) }),
      chunk("middle", { vector: unit(3, 2) }),
    ]);
    const hits = await d.index.vectorSearch(dep, unit(3), 3);
    expect(hits.map((h) => h.id)).toEqual([ids[2], ids[1], ids[3]] as number[]);
    expect(hits[0]?.distance).toBeCloseTo(1 - 1 / Math.hypot(1, 0.1), 5);
    expect(hits.every((h, i) => i === 0 || h.distance >= (hits[i - 1]?.distance as number))).toBe(true);
  });

  test("a write that fails part-way leaves no chunk, keyword row, vector or statistic behind", async () => {
    const dep = await d.deployment();
    await d.addDocument(dep, [chunk("orchid greenhouse", { vector: unit(0) })]);
    const before = {
      df: await d.stats.documentFrequencies(dep, ["orchid", "tulip"]),
      n: await d.stats.totalChunks(dep),
      all: (await d.allChunks()).length,
    };
    const wrong = new Float32Array(DIM + 3).fill(0.1);
    await expect(
      d.addDocument(dep, [chunk("tulip orchid", { vector: unit(1) }), chunk("tulip bulbs", { vector: wrong })]),
    ).rejects.toThrow();
    expect({
      df: await d.stats.documentFrequencies(dep, ["orchid", "tulip"]),
      n: await d.stats.totalChunks(dep),
      all: (await d.allChunks()).length,
    }).toEqual(before);
    expect(await search(d, dep, ["tulip"])).toEqual([]);
  });

  test("chunks come back verbatim with their document, page and row ranges", async () => {
    const dep = await d.deployment();
    const text = "Ünïcode “quotes” and 'apostrophes' — kept exactly.\nSecond line.";
    const { documentId, ids } = await d.addDocument(dep, [
      chunk(text, { ord: 3, source: "Guide", headingPath: "Intro > Scope", pageStart: 2, pageEnd: 3 }),
      chunk("rows", { ord: 4, rowStart: 10, rowEnd: 20 }),
    ]);
    const rows = (await d.index.getChunks(ids)).sort((a, b) => a.id - b.id);
    expect(rows[0]).toMatchObject({
      id: ids[0],
      deploymentId: dep,
      documentId,
      ord: 3,
      source: "Guide",
      text,
      headingPath: "Intro > Scope",
      pageStart: 2,
      pageEnd: 3,
      rowStart: null,
      rowEnd: null,
    });
    expect(rows[1]).toMatchObject({ ord: 4, pageStart: null, rowStart: 10, rowEnd: 20 });
    expect(await d.index.getChunks([])).toEqual([]);
  });

  test("hostile words — quotes, FTS5 operators, a 10,000-character word — are searched as plain words", async () => {
    const dep = await d.deployment();
    const long = "x".repeat(10_000);
    const { ids } = await d.addDocument(dep, [chunk(`NEAR AND OR ${long}`)]);
    expect((await search(d, dep, [long])).map((h) => h.id)).toEqual(ids);
    expect((await search(d, dep, ["near", "and"])).map((h) => h.id)).toEqual(ids);
    expect(await search(d, dep, ['say "hi"', "a'b"])).toEqual([]);
    expect((await d.stats.documentFrequencies(dep, [long])).get(long)).toBe(1);
  });

  test("the embedding cache and index metadata round-trip", async () => {
    const v = new Float32Array([0.25, -1.5, 3e-8, 7]);
    await d.cacheVector("emb", "hash1", v);
    await d.cacheVector("emb", "hash1", new Float32Array([9, 9, 9, 9]));
    expect(Array.from((await d.cachedVector("emb", "hash1")) ?? [])).toEqual(Array.from(v));
    expect(await d.cachedVector("emb", "missing")).toBeNull();
    await d.setMeta("embedder", "a");
    await d.setMeta("embedder", "b");
    expect(await d.meta("embedder")).toBe("b");
    expect(await d.meta("absent")).toBeNull();
  });
});

/** Where a JavaScript approximation of FTS5's unicode61 goes wrong: ligatures, super/subscripts, µ, non-Latin marks, Hangul. */
const TRICKY = [
  "The ﬁnding was identiﬁed in 12 km² plots with H₂O₂ at 5 µg per m³; CD3ϵ cells and ½ doses.",
  "Йод и ёлка; άλφα βήτα; Việt Nam; naïve ŒUVRE straße İstanbul Ø ł.",
  "مَرْحَبًا بالعالم و हिंदी पाठ और 한국어 텍스트 日本語 テキスト adams™ 🙂x user_id",
];

describe("SQLite and PostgreSQL head to head on 400 SciFact abstracts and text in many scripts", () => {
  const drivers: IndexDriver[] = [];
  const deps: string[] = [];
  let queries: string[] = [];
  beforeAll(async () => {
    const ds = await loadScifact({ queryLimit: 40 });
    queries = [...ds.queries.map((q) => q.text), ...TRICKY];
    const chunks = [...ds.corpus.slice(0, 400), ...TRICKY.map((text, i) => ({ id: `tricky-${i}`, title: "", text }))].map((p, i) =>
      chunk(passageText(p), { ord: i, source: p.id, headingPath: p.title.split(" ").slice(0, 3).join(" ") }),
    );
    for (const engine of ENGINES) {
      const d = await openDriver(engine);
      const dep = await d.deployment();
      for (let i = 0; i < chunks.length; i += 100) await d.addDocument(dep, chunks.slice(i, i + 100));
      drivers.push(d);
      deps.push(dep);
    }
  }, 60_000);
  afterAll(async () => {
    for (const d of drivers) await d.close();
  });

  test("BM25 gives the same chunks in the same order with the same scores (within 1e-9)", async () => {
    const [sqlite, pg] = drivers as [IndexDriver, IndexDriver];
    const sources = async (d: IndexDriver, hits: { id: number }[]) => {
      const m = new Map((await d.index.getChunks(hits.map((h) => h.id))).map((r) => [r.id, r.source]));
      return hits.map((h) => m.get(h.id));
    };
    let compared = 0;
    for (const q of queries) {
      const match = searched(q);
      if (match.length === 0) continue;
      const a = await sqlite.index.keywordSearch(deps[0] as string, match, 20);
      const b = await pg.index.keywordSearch(deps[1] as string, match, 20);
      expect(b.length).toBe(a.length);
      for (const [i, h] of a.entries()) expect(Math.abs(h.score - (b[i]?.score as number))).toBeLessThan(1e-9);
      // equal scores may tie-break differently; compare the sets of sources per distinct score
      const group = async (d: IndexDriver, hits: { id: number; score: number }[]) => {
        const s = await sources(d, hits);
        return hits.map((h, i) => `${h.score.toFixed(9)}:${s[i]}`).sort();
      };
      expect(await group(pg, b)).toEqual(await group(sqlite, a));
      compared += a.length;
    }
    expect(compared).toBeGreaterThan(300);
    // the words of the tricky texts were found, and found alike
    for (const q of TRICKY) expect((await pg.index.keywordSearch(deps[1] as string, searched(q), 5)).length).toBeGreaterThan(0);
  });

  test("retrieve() answers every question with the same passages and the same relevance on both engines", async () => {
    const retrievers = drivers.map((d) =>
      createRetriever({
        index: d.index,
        stats: d.stats,
        embedder: async () => null,
        settings: { keywordWeight: 1, vectorWeight: 0, candidates: 50, rrfK: 60, minIdfCorpus: 250, calibration: () => null },
      }),
    );
    for (const q of queries) {
      const [a, b] = await Promise.all(
        retrievers.map((r, i) => r.retrieve({ deploymentId: deps[i] as string, query: q, topK: 10, mode: "keyword" })),
      );
      const view = (r: typeof a) => r?.hits.map((h) => `${h.fused.toFixed(9)}:${h.source}:${h.relevance.toFixed(9)}`).sort();
      expect(view(b)).toEqual(view(a));
      expect(b?.relevance).toBeCloseTo(a?.relevance as number, 9);
      expect([...(b?.weights ?? [])]).toEqual([...(a?.weights ?? [])]);
    }
  });
});
