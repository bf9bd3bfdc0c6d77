import { expect, test } from "bun:test";
import type { DocumentRecord, Store } from "../../../src/store/contract/index.ts";
import { searched } from "../../helpers/analyzed.ts";
import { describeStores } from "../../helpers/stores.ts";
import { chunk, deployment, document, uid, withVectorTable } from "./core-fixtures.ts";

const LEASE = 60_000;

/** Claims until this worker holds the wanted documents (earlier tests' queued documents are claimed on the way). */
async function claimDocs(store: Store, worker: string, ids: string[]): Promise<DocumentRecord[]> {
  const held = new Map<string, DocumentRecord>();
  for (let i = 0; i < 20 && held.size < ids.length; i++)
    for (const d of await store.repos.training.claim(worker, 50, LEASE)) if (ids.includes(d.id)) held.set(d.id, d);
  if (held.size < ids.length) throw new Error(`documents ${ids.join(", ")} were not all claimed`);
  return ids.map((id) => held.get(id) as DocumentRecord);
}
const claimDoc = async (store: Store, worker: string, id: string) => (await claimDocs(store, worker, [id]))[0] as DocumentRecord;
/** A document of this name added, claimed and completed with one chunk of `text`. */
async function completedDoc(store: Store, worker: string, deploymentId: string, name: string, text: string): Promise<DocumentRecord> {
  const doc = await claimDoc(store, worker, (await document(store, deploymentId, { name })).id);
  await store.repos.training.completeBatch(worker, [{ doc, chunks: [chunk(text)] }], null);
  return doc;
}

describeStores("training store", (ctx) => {
  test("a claimed batch completes in one call: chunks searchable, documents completed, the deployment's status refreshed", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const one = await document(store, d.id, { name: "one.txt" });
    const two = await document(store, d.id, { name: "two.txt" });
    const worker = uid("w");
    const [a, b] = (await claimDocs(store, worker, [one.id, two.id])) as [DocumentRecord, DocumentRecord];
    expect(a).toMatchObject({ status: "processing", attempts: 1 });
    expect((await store.repos.deployments.findById(d.id))?.trainingStatus).toBe("processing");
    const done = await store.repos.training.completeBatch(
      worker,
      [
        { doc: a, chunks: [chunk("otters hold hands", 0), chunk("otters sleep", 1)] },
        { doc: b, chunks: [chunk("beavers build dams", 0)] },
      ],
      "embedder-x",
    );
    expect(done.sort()).toEqual([a.id, b.id].sort());
    expect(await store.repos.documents.get(a.id)).toMatchObject({ status: "completed", chunkCount: 2 });
    expect((await store.repos.chunkIndex.keywordSearch(d.id, searched("otters"), 5)).length).toBe(2);
    expect((await store.repos.chunkIndex.keywordSearch(d.id, searched("beavers"), 5)).length).toBe(1);
    expect(await store.repos.termStats.totalChunks(d.id)).toBe(3);
    const dep = await store.repos.deployments.findById(d.id);
    expect(dep?.trainingStatus).toBe("completed");
    expect(dep?.trainedAt).toBeGreaterThan(0);
  });

  test("documents trained before their rows exist are stored completed in one call, replacing older ones of their name", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const worker = uid("w");
    const old = await completedDoc(store, worker, d.id, "tides.txt", "old tide table");
    const record = (name: string) => ({
      id: uid("doc"),
      deploymentId: d.id,
      name,
      kind: "txt" as const,
      contentHash: uid("hash"),
      bytes: new TextEncoder().encode(name),
      pages: null,
      queue: true,
      replaceOnTrain: true,
    });
    const [tides, moon] = [record("tides.txt"), record("moon.txt")];
    const docs = await store.repos.training.insertTrained(
      worker,
      [
        { record: tides, chunks: [chunk("spring tides rise high", 0), chunk("neap tides stay low", 1)] },
        { record: moon, chunks: [chunk("the moon pulls the sea", 0)] },
      ],
      null,
    );
    expect(docs.map((x) => [x.id, x.status, x.chunkCount])).toEqual([
      [tides.id, "completed", 2],
      [moon.id, "completed", 1],
    ]);
    expect(await store.repos.documents.get(old.id)).toBeNull();
    expect(await store.repos.documents.partCount(tides.id, "chunks")).toBe(0);
    expect(await store.repos.documents.bytes(moon.id)).toEqual(new TextEncoder().encode("moon.txt"));
    expect((await store.repos.chunkIndex.keywordSearch(d.id, searched("tides"), 5)).length).toBe(2);
    expect(await store.repos.chunkIndex.keywordSearch(d.id, searched("old"), 5)).toEqual([]);
    expect((await store.repos.deployments.findById(d.id))?.trainingStatus).toBe("completed");
  });

  test("two workers racing to claim get disjoint documents", async () => {
    const a = ctx.store();
    const b = await ctx.node();
    const d = await deployment(a);
    const ids = new Set<string>();
    for (let i = 0; i < 10; i++) ids.add((await document(a, d.id, { name: `r${i}.txt` })).id);
    const drain = async (s: Store, worker: string) => {
      const got: DocumentRecord[] = [];
      for (;;) {
        const batch = await s.repos.training.claim(worker, 3, LEASE);
        if (batch.length === 0) return got;
        got.push(...batch);
      }
    };
    const [x, y] = await Promise.all([drain(a, uid("wa")), drain(b, uid("wb"))]);
    const all = [...x, ...y];
    expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
    expect(all.filter((r) => ids.has(r.id)).length).toBe(10);
  });

  test("a document that replaces an older one of the same name swaps it out when it completes", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const worker = uid("w");
    const old = await completedDoc(store, worker, d.id, "policy.txt", "old policy text");
    const fresh = await claimDoc(store, worker, (await document(store, d.id, { name: "policy.txt", replaceOnTrain: true })).id);
    expect(await store.repos.training.completeBatch(worker, [{ doc: fresh, chunks: [chunk("new policy text")] }], null)).toEqual([
      fresh.id,
    ]);
    expect(await store.repos.documents.get(old.id)).toBeNull();
    expect((await store.repos.documents.findByName(d.id, "policy.txt")).map((x) => x.id)).toEqual([fresh.id]);
    expect(await store.repos.chunkIndex.keywordSearch(d.id, searched("old"), 5)).toEqual([]);
    expect((await store.repos.chunkIndex.keywordSearch(d.id, searched("new"), 5)).length).toBe(1);
  });

  test("a key push replaces only key pushes of its name; the owner's document of that name stays, an owner upload replaces both", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const worker = uid("w");
    const complete = async (id: string, text: string) => {
      const doc = await claimDoc(store, worker, id);
      return store.repos.training.completeBatch(worker, [{ doc, chunks: [chunk(text)] }], null);
    };
    const owners = await document(store, d.id, { name: "policy.txt" });
    await complete(owners.id, "owner policy text");
    const pushed = await document(store, d.id, { name: "policy.txt", replaceOnTrain: true, origin: "key" });
    await complete(pushed.id, "pushed policy text");
    await Bun.sleep(2);
    const again = await document(store, d.id, { name: "policy.txt", replaceOnTrain: true, origin: "key" });
    expect(await complete(again.id, "again policy text")).toEqual([again.id]);
    expect((await store.repos.documents.findByName(d.id, "policy.txt")).map((x) => [x.id, x.origin])).toEqual([
      [owners.id, "owner"],
      [again.id, "key"],
    ]);
    expect((await store.repos.chunkIndex.keywordSearch(d.id, ["owner"], 5)).length).toBe(1);
    expect(await store.repos.chunkIndex.keywordSearch(d.id, ["pushed"], 5)).toEqual([]);
    await Bun.sleep(2);
    const upload = await document(store, d.id, { name: "policy.txt", replaceOnTrain: true, origin: "owner" });
    await complete(upload.id, "uploaded policy text");
    expect((await store.repos.documents.findByName(d.id, "policy.txt")).map((x) => x.id)).toEqual([upload.id]);
  });

  test("two uploads of one name completed in the same batch leave only the newer one", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const worker = uid("w");
    const older = await document(store, d.id, { name: "faq.txt", replaceOnTrain: true });
    await Bun.sleep(2);
    const newer = await document(store, d.id, { name: "faq.txt", replaceOnTrain: true });
    const [a, b] = (await claimDocs(store, worker, [older.id, newer.id])) as [DocumentRecord, DocumentRecord];
    const done = await store.repos.training.completeBatch(
      worker,
      [
        { doc: a, chunks: [chunk("first faq answer")] },
        { doc: b, chunks: [chunk("second faq answer")] },
      ],
      null,
    );
    expect(done).toEqual([newer.id]);
    expect((await store.repos.documents.findByName(d.id, "faq.txt")).map((x) => x.id)).toEqual([newer.id]);
    expect(await store.repos.chunkIndex.keywordSearch(d.id, searched("first"), 5)).toEqual([]);
    expect((await store.repos.chunkIndex.keywordSearch(d.id, searched("second"), 5)).length).toBe(1);
    expect(await store.repos.termStats.totalChunks(d.id)).toBe(1);
  });

  test("a large document is staged where no search sees it, published in batches, and finished with its vectors", async () => {
    const store = ctx.store();
    const { chunkIndex, training } = store.repos;
    await withVectorTable(store, async () => {
      const d = await deployment(store);
      const worker = uid("w");
      const doc = await claimDoc(store, worker, (await document(store, d.id, { name: "big.txt" })).id);
      expect(await training.clearIndex(worker, doc.id)).toBe(true);
      // leases exist with several nodes only: on SQLite one process owns the data dir
      if (ctx.engine === "postgres") expect(await training.clearIndex(uid("someone-else"), doc.id)).toBe(false);
      const vectors: { id: number; vector: Float32Array }[] = [];
      for (let seq = 0; seq < 3; seq++) {
        const chunks = [chunk(`puffin part ${seq} a`, 2 * seq, new Float32Array([1, seq, 0])), chunk(`puffin part ${seq} b`, 2 * seq + 1)];
        const ids = await training.stage(worker, doc, seq, 3, chunks, "emb");
        expect(ids?.length).toBe(2);
        for (const [i, c] of chunks.entries()) if (c.vector) vectors.push({ id: (ids as number[])[i] as number, vector: c.vector });
      }
      expect((await store.repos.documents.get(doc.id))?.progress).toEqual({ done: 3, total: 3 });
      expect(await chunkIndex.keywordSearch(d.id, searched("puffin"), 10)).toEqual([]);
      expect(await chunkIndex.cachedVector("emb", "h:puffin part 1 a")).toEqual(new Float32Array([1, 1, 0]));
      expect(await chunkIndex.cachedVectors("emb", ["h:puffin part 2 a", "h:missing", "h:puffin part 1 a"])).toEqual([
        new Float32Array([1, 2, 0]),
        null,
        new Float32Array([1, 1, 0]),
      ]);
      let moved = 0;
      for (let n = await training.publish(worker, doc, 4); n > 0; n = await training.publish(worker, doc, 4)) moved += n;
      expect(moved).toBe(6);
      expect((await chunkIndex.keywordSearch(d.id, searched("puffin"), 10)).length).toBe(6);
      expect(await chunkIndex.vectorSearch(d.id, new Float32Array([1, 0, 0]), 5)).toEqual([]);
      expect(await training.finishLarge(worker, doc, vectors, 6)).toBe(true);
      expect(await store.repos.documents.get(doc.id)).toMatchObject({
        status: "completed",
        chunkCount: 6,
        progress: { done: 3, total: 3 },
      });
      expect((await chunkIndex.vectorSearch(d.id, new Float32Array([1, 0, 0]), 5)).length).toBe(3);
      expect(await chunkIndex.counts(doc.id)).toEqual({ chunks: 6, fts: 6, vec: 3 });
      expect((await store.repos.deployments.findById(d.id))?.trainingStatus).toBe("completed");
    });
  });

  test("a document removed while it trains is not completed, and its rows are gone", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const worker = uid("w");
    const doc = await claimDoc(store, worker, (await document(store, d.id)).id);
    await store.repos.training.removeDocument(doc.id, d.id);
    expect(await store.repos.training.renew(worker, [doc.id], LEASE)).toEqual([doc.id]);
    expect(await store.repos.training.completeBatch(worker, [{ doc, chunks: [chunk("ghost text")] }], null)).toEqual([]);
    expect(await store.repos.training.stage(worker, doc, 0, 2, [chunk("ghost")], null)).toBeNull();
    expect(await store.repos.training.publish(worker, doc, 10)).toBe(0);
    expect(await store.repos.training.finishLarge(worker, doc, [], 0)).toBe(false);
    expect(await store.repos.documents.get(doc.id)).toBeNull();
    expect(await store.repos.chunkIndex.counts(doc.id)).toEqual({ chunks: 0, fts: 0, vec: 0 });
    expect((await store.repos.deployments.findById(d.id))?.trainingStatus).toBe("none");
  });

  test("a failure records its reason; a deferral puts the document back in the queue without counting the attempt", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const worker = uid("w");
    const [bad, wait] = (await claimDocs(store, worker, [
      (await document(store, d.id, { name: "bad.txt" })).id,
      (await document(store, d.id, { name: "wait.txt" })).id,
    ])) as [DocumentRecord, DocumentRecord];
    expect(await store.repos.training.renew(worker, [bad.id, wait.id], LEASE)).toEqual([]);
    await store.repos.training.fail(worker, bad, "document_unreadable", "Unreadable.");
    expect(await store.repos.documents.get(bad.id)).toMatchObject({
      status: "failed",
      errorCode: "document_unreadable",
      errorMessage: "Unreadable.",
    });
    await store.repos.training.defer(worker, wait, "waiting_for_embeddings", "Waiting for the embeddings server.");
    expect(await store.repos.documents.get(wait.id)).toMatchObject({ status: "queued", attempts: 0, errorCode: "waiting_for_embeddings" });
    expect((await store.repos.deployments.findById(d.id))?.trainingStatus).toBe("queued");
    const again = await claimDoc(store, worker, wait.id);
    expect(again.attempts).toBe(1);
    await store.repos.training.completeBatch(worker, [{ doc: again, chunks: [chunk("back again")] }], null);
    await store.repos.training.refreshStatus(d.id);
    expect((await store.repos.deployments.findById(d.id))?.trainingStatus).toBe("completed");
  });
});
