import { expect, test } from "bun:test";
import { reindexKeywords } from "../../../src/documents/keyword-reindex.ts";
import { ANALYZER_VERSION } from "../../../src/rag/terms.ts";
import type { NewChunk, Store } from "../../../src/store/contract/index.ts";
import { searched, withTerms } from "../../helpers/analyzed.ts";
import { describeStores } from "../../helpers/stores.ts";
import { chunk, deployment, document, uid } from "./core-fixtures.ts";

/** A deployment with one trained document holding `chunks`. */
async function trained(store: Store, chunks: NewChunk[]): Promise<{ deploymentId: string; documentId: string }> {
  const d = await deployment(store);
  const doc = await document(store, d.id);
  const worker = uid("w");
  for (let i = 0; i < 20; i++) {
    const mine = (await store.repos.training.claim(worker, 50, 60_000)).find((x) => x.id === doc.id);
    if (mine) {
      await store.repos.training.completeBatch(worker, [{ doc: mine, chunks }], null);
      return { deploymentId: d.id, documentId: doc.id };
    }
  }
  throw new Error("not claimed");
}

const TEXTS = [
  "Annual plans are refunded within thirty days.",
  "Refunds for monthly plans are not available.",
  "The support desk answers emails on weekdays.",
  "Storage is sold in blocks of one hundred gigabytes.",
  "Invoices are emailed at the start of each month.",
];
const reindex = (store: Store, opts: Parameters<typeof reindexKeywords>[1] = {}, pinned: string[] = []) =>
  reindexKeywords({ index: store.repos.chunkIndex, pinnedLanguages: async () => pinned }, opts);

describeStores("keyword index rebuild", (ctx) => {
  test("a rebuild runs in batches while the old index answers, resumes where it stopped, and ends with the same statistics", async () => {
    const store = ctx.store();
    const { deploymentId } = await trained(
      store,
      TEXTS.map((t, i) => chunk(t, i)),
    );
    const before = {
      n: await store.repos.termStats.totalChunks(deploymentId),
      df: [...(await store.repos.termStats.documentFrequencies(deploymentId, searched("refunds plans emails"))).entries()],
      hits: (await store.repos.chunkIndex.keywordSearch(deploymentId, searched("refund plans"), 5)).map((h) => h.id),
    };
    await reindex(store); // whatever earlier tests left pending
    await store.repos.chunkIndex.keywordReindexRequest(deploymentId);
    expect((await store.repos.chunkIndex.keywordReindexPending(ANALYZER_VERSION)).map((p) => p.deploymentId)).toContain(deploymentId);
    let batches = 0;
    // "killed" after two batches of two chunks
    const first = await reindex(store, { batch: 2, shouldStop: () => batches >= 2, onProgress: () => void batches++ });
    expect(first).toBe(4);
    expect((await store.repos.chunkIndex.keywordSearch(deploymentId, searched("refund plans"), 5)).map((h) => h.id)).toEqual(before.hits);
    // a restart (another node, or the same after kill -9) does only what is left
    const rest = await reindex(await ctx.node(), { batch: 2 });
    expect(rest).toBe(TEXTS.length - 4);
    expect((await store.repos.chunkIndex.keywordReindexPending(ANALYZER_VERSION)).map((p) => p.deploymentId)).not.toContain(deploymentId);
    expect(await store.repos.termStats.totalChunks(deploymentId)).toBe(before.n);
    expect([...(await store.repos.termStats.documentFrequencies(deploymentId, searched("refunds plans emails"))).entries()]).toEqual(
      before.df,
    );
    expect((await store.repos.chunkIndex.keywordSearch(deploymentId, searched("refund plans"), 5)).map((h) => h.id)).toEqual(before.hits);
  });

  test("a document removed during a rebuild leaves nothing in the new index", async () => {
    const store = ctx.store();
    const { deploymentId, documentId } = await trained(
      store,
      TEXTS.map((t, i) => chunk(t, i)),
    );
    await reindex(store);
    await store.repos.chunkIndex.keywordReindexRequest(deploymentId);
    let batches = 0;
    await reindex(store, { batch: 2, shouldStop: () => batches >= 1, onProgress: () => void batches++ });
    await store.repos.training.removeDocument(documentId, deploymentId);
    await reindex(store, { batch: 2 });
    expect(await store.repos.termStats.totalChunks(deploymentId)).toBe(0);
    expect(await store.repos.chunkIndex.keywordSearch(deploymentId, searched("refund"), 5)).toEqual([]);
    expect((await store.repos.termStats.documentFrequencies(deploymentId, searched("refund"))).get("refund")).toBe(0);
  });

  test("pinned languages re-analyze the index: a Danish text first taken for Norwegian is stemmed as Danish", async () => {
    const store = ctx.store();
    const text = "Lejekontrakten kan opsiges med tre måneders varsel, og depositummet tilbagebetales efter fraflytning.";
    const { deploymentId, documentId } = await trained(store, [withTerms({ ...chunk(text), text }, "no")]);
    await reindex(store);
    expect((await store.repos.documents.get(documentId))?.lang).toBe("no");
    await store.repos.chunkIndex.keywordReindexRequest(deploymentId);
    await reindex(store, {}, ["da"]);
    expect((await store.repos.documents.get(documentId))?.lang).toBe("da");
    const danish = withTerms({ text: "depositum lejekontrakt", headingPath: "" }, "da").terms.split(" ");
    expect((await store.repos.chunkIndex.keywordSearch(deploymentId, danish, 5)).length).toBe(1);
  });
});
