import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { Embedder } from "../../src/rag/embedder.ts";
import { type ChunkIndex, createRetriever } from "../../src/rag/retrieve.ts";
import type { NewChunk } from "../../src/store/contract/index.ts";
import { withTerms } from "../helpers/analyzed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { describeEngines } from "../helpers/stores.ts";

describeEngines("hybrid retrieval", (engine) => {
  /** A real, deterministic embedder: hashed bag of words, L2-normalised, with "synonym" buckets shared. */
  function hashedEmbedder(dimension = 64): Embedder {
    const synonyms: Record<string, string> = { reimbursement: "refund", refunded: "refund", money: "refund", back: "refund" };
    const embed = (text: string) => {
      const v = new Float32Array(dimension);
      for (const raw of text.toLowerCase().match(/[a-z]+/g) ?? []) {
        const w = synonyms[raw] ?? raw;
        v[createHash("md5").update(w).digest()[0]! % dimension]! += 1;
      }
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    };
    return { id: "test-hashed", dimension, embedDocuments: async (t) => t.map(embed), embedQuery: async (t) => embed(t) };
  }

  let server: TestServer;
  let deploymentId: string;
  let other: string;
  let variants: string;
  const embedder = hashedEmbedder();

  beforeAll(async () => {
    server = await startTestServer({}, { engine });
    deploymentId = (await server.seed()).deploymentId;
    other = (await server.seed()).deploymentId;
    variants = (await server.seed()).deploymentId;
    const index = server.services.repos.chunkIndex;
    await index.createVectorTable(embedder.dimension);
    const texts = [
      ["policy", "Annual plans can be refunded within 30 days of purchase."],
      ["hours", "The support desk is open Monday to Friday."],
      ["storage", "Extra storage is sold in blocks of 100 GB."],
    ] as const;
    const vectors = await embedder.embedDocuments(texts.map((t) => t[1]));
    /** A document of one passage, stored and indexed as training would. */
    const addDocument = async (dep: string, id: string, source: string, text: string, chunk: Partial<NewChunk> = {}) => {
      await server.services.repos.documents.insert({
        id,
        deploymentId: dep,
        name: `${source}.txt`,
        kind: "txt",
        contentHash: id,
        bytes: new TextEncoder().encode(text),
        parsed: "{}",
        pages: null,
        queue: false,
        replaceOnTrain: false,
      });
      await index.insert(dep, id, [withTerms({ ord: 0, source, text, headingPath: "", tokenCount: 8, textHash: id, ...chunk })]);
    };
    for (const [dep, suffix] of [
      [deploymentId, "a"],
      [other, "b"],
    ] as const) {
      for (const [i, [source, text]] of texts.entries())
        await addDocument(dep, `doc_${source}_${suffix}`, source, text, { pageStart: 2, pageEnd: 3, tokenCount: 10, vector: vectors[i] });
    }
    for (const [source, text] of [
      ["receptor", "Each TLR on dendritic cells senses microbes."],
      ["cytokines", "Proinflammatory cytokines rise after infection."],
      ["background", "!: Expands to the process ID of the job most recently placed into the background."],
      ["status", "?: Expands to the exit status of the most recently executed foreground pipeline."],
    ] as const)
      await addDocument(variants, `doc_${source}_v`, source, text);
  }, 60_000);
  afterAll(() => server.stop());

  const retriever = (vectorWeight: number) =>
    createRetriever({
      index: server.services.repos.chunkIndex,
      stats: server.services.repos.termStats,
      embedder: async () => embedder,
      settings: { keywordWeight: 1, vectorWeight, candidates: 10, rrfK: 60, minIdfCorpus: 250, calibration: () => null },
    });

  describe("hybrid retrieval", () => {
    test("hits carry the verbatim passage, its document, its page range and a relevance in 0..1", async () => {
      const r = await retriever(1).retrieve({ deploymentId, query: "Can annual plans be refunded?", topK: 3 });
      const top = r.hits[0];
      expect(top?.text).toBe("Annual plans can be refunded within 30 days of purchase.");
      expect(top?.source).toBe("policy");
      expect([top?.pageStart, top?.pageEnd]).toEqual([2, 3]);
      expect(top?.relevance).toBeGreaterThan(0.5);
      expect(top?.relevance).toBeLessThanOrEqual(1);
      expect(r.used).toEqual({ keyword: true, vector: true, reranker: false });
    });

    test("the vector ranking finds a paraphrase the keywords miss", async () => {
      const keywordOnly = await retriever(1).retrieve({ deploymentId, query: "reimbursement money back", topK: 3, mode: "keyword" });
      expect(keywordOnly.hits).toHaveLength(0);
      const hybrid = await retriever(1).retrieve({ deploymentId, query: "reimbursement money back", topK: 3 });
      expect(hybrid.hits[0]?.source).toBe("policy");
    });

    test("never returns another deployment's passages", async () => {
      const r = await retriever(1).retrieve({ deploymentId, query: "support desk Monday storage refunded", topK: 10 });
      expect(r.hits.every((h) => h.documentId.endsWith("_a"))).toBe(true);
    });

    test("a row of another deployment is dropped, whatever index returned it", async () => {
      const index = server.services.repos.chunkIndex;
      // an index whose vector side answers from the wrong deployment
      const leaky: ChunkIndex = {
        keywordSearch: (d, terms, limit) => index.keywordSearch(d, terms, limit),
        vectorSearch: (_d, v, k) => index.vectorSearch(other, v, k),
        getChunks: (ids) => index.getChunks(ids),
        hasVectors: () => index.hasVectors(),
      };
      const r = await createRetriever({
        index: leaky,
        stats: server.services.repos.termStats,
        embedder: async () => embedder,
        settings: { keywordWeight: 1, vectorWeight: 1, candidates: 10, rrfK: 60, minIdfCorpus: 250, calibration: () => null },
      }).retrieve({ deploymentId, query: "reimbursement money back", topK: 3 });
      expect(r.used.vector).toBe(true);
      expect(r.hits.map((h) => h.documentId)).toEqual([]);
    });

    test("a vector weight of 0 is keyword-only retrieval", async () => {
      const r = await retriever(0).retrieve({ deploymentId, query: "support desk", topK: 3 });
      expect(r.used.vector).toBe(false);
      expect(r.hits[0]?.source).toBe("hours");
    });

    test("an acronym's plural finds its singular, and a hyphenated word its closed form", async () => {
      const search = (query: string) => retriever(0).retrieve({ deploymentId: variants, query, topK: 3, mode: "keyword" });
      expect((await search("TLRs")).hits.map((h) => h.source)).toEqual(["receptor"]);
      expect((await search("pro-inflammatory")).hits.map((h) => h.source)).toEqual(["cytokines"]);
    });

    test("a symbol is a term on this engine too: '$!' finds the '!' entry, '$?' the '?' entry", async () => {
      const search = (query: string) => retriever(0).retrieve({ deploymentId: variants, query, topK: 1, mode: "keyword" });
      expect((await search("What does $! expand to?")).hits.map((h) => h.source)).toEqual(["background"]);
      expect((await search("What does $? expand to?")).hits.map((h) => h.source)).toEqual(["status"]);
    });
  });
});
