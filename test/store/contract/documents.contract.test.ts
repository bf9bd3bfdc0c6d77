import { expect, test } from "bun:test";
import { describeStores } from "../../helpers/stores.ts";
import { account, deployment, document, uid } from "./core-fixtures.ts";

describeStores("documents", (ctx) => {
  test("a stored document reads back with its bytes, parts and defaults, scoped to its deployment", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const other = await deployment(store);
    const doc = await document(store, d.id, { queue: false, text: "hello there" });
    expect(doc).toMatchObject({
      deploymentId: d.id,
      name: "notes.txt",
      kind: "txt",
      size: 11,
      status: "stored",
      errorCode: null,
      errorMessage: null,
      attempts: 0,
      chunkCount: 0,
      pages: null,
      replaceOnTrain: false,
      origin: "owner",
      ocrPages: 0,
      ocrConfidence: null,
      notes: [],
      progress: { done: 0, total: 0 },
    });
    expect(await store.repos.documents.get(doc.id)).toEqual(doc);
    expect(await store.repos.documents.getScoped(doc.id, d.id)).toEqual(doc);
    expect(await store.repos.documents.getScoped(doc.id, other.id)).toBeNull();
    expect(await store.repos.documents.get("doc_missing")).toBeNull();
    expect(new TextDecoder().decode((await store.repos.documents.bytes(doc.id)) as Uint8Array)).toBe("hello there");
    expect(await store.repos.documents.partCount(doc.id, "chunks")).toBe(1);
    expect(await store.repos.documents.partText(doc.id, "chunks", 0)).toBe(JSON.stringify({ ord: 0, text: "hello there" }));
    expect(await store.repos.documents.partText(doc.id, "chunks", 1)).toBeNull();
    expect(await store.repos.documents.parsed(doc.id)).toBeNull();
    expect(await store.repos.documents.list(d.id)).toEqual([doc]);
    expect(await store.repos.documents.findByName(d.id, "notes.txt")).toEqual([doc]);
  });

  test("a large document's bytes come back from its parts in order, and OCR notes and confidence are kept", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const id = uid("doc");
    await store.repos.documents.insertPart(id, "bytes", 1, new TextEncoder().encode("world"));
    await store.repos.documents.insertPart(id, "bytes", 0, new TextEncoder().encode("hello "));
    await store.repos.documents.insertPart(id, "chunks", 0, '{"ord":0}');
    await store.repos.documents.insertPart(id, "chunks", 0, '{"ord":0,"again":true}');
    const doc = await store.repos.documents.insert({
      id,
      deploymentId: d.id,
      name: "scan.pdf",
      kind: "pdf",
      contentHash: "h",
      size: 11,
      pages: 2,
      queue: true,
      replaceOnTrain: true,
      ocrPages: 2,
      ocrConfidence: 71.5,
      notes: [{ page: 2, code: "ocr_low_confidence", confidence: 40 }],
    });
    expect(doc).toMatchObject({ status: "queued", pages: 2, replaceOnTrain: true, ocrPages: 2, ocrConfidence: 71.5, size: 11 });
    expect(doc.notes).toEqual([{ page: 2, code: "ocr_low_confidence", confidence: 40 }]);
    expect(new TextDecoder().decode((await store.repos.documents.bytes(id)) as Uint8Array)).toBe("hello world");
    expect(await store.repos.documents.partCount(id, "bytes")).toBe(2);
    expect(await store.repos.documents.partText(id, "chunks", 0)).toBe('{"ord":0,"again":true}');
    await store.repos.documents.setProgress(id, 1, 2);
    expect((await store.repos.documents.get(id))?.progress).toEqual({ done: 1, total: 2 });
  });

  test("parts without a document are swept once old enough; a document's own parts never", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const orphan = uid("doc");
    await store.repos.documents.insertPart(orphan, "bytes", 0, new Uint8Array([1]));
    const kept = await document(store, d.id);
    expect(await store.repos.documents.deleteOrphanParts(60_000)).toBe(0);
    await Bun.sleep(5);
    expect(await store.repos.documents.deleteOrphanParts(1)).toBe(1);
    expect(await store.repos.documents.partCount(orphan, "bytes")).toBe(0);
    expect(await store.repos.documents.partCount(kept.id, "chunks")).toBe(1);
  });

  test("usage counts an account's documents and bytes across its deployments, leaving out the one about to be replaced", async () => {
    const store = ctx.store();
    const owner = await account(store);
    const a = await deployment(store, { accountId: owner.id });
    const b = await deployment(store, { accountId: owner.id });
    await document(store, a.id, { name: "one.txt", text: "12345" });
    await document(store, b.id, { name: "two.txt", text: "123" });
    await document(store, (await deployment(store)).id, { name: "elsewhere.txt", text: "1234567" });
    expect(await store.repos.documents.accountUsage(owner.id, null)).toEqual({ documents: 2, bytes: 8 });
    expect(await store.repos.documents.accountUsage(owner.id, { deploymentId: a.id, name: "one.txt" })).toEqual({ documents: 1, bytes: 3 });
  });

  test("queueing a deployment queues its stored and failed documents only, and status counts follow", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const s1 = await document(store, d.id, { queue: false });
    const s2 = await document(store, d.id, { queue: false });
    await store.repos.documents.markFailed(s2.id, "bad", "Bad.");
    await document(store, d.id, { queue: true });
    expect(await store.repos.documents.statusCounts(d.id)).toEqual({ stored: 1, queued: 1, processing: 0, completed: 0, failed: 1 });
    expect(await store.repos.documents.queueDeployment(d.id)).toBe(2);
    expect(await store.repos.documents.statusCounts(d.id)).toEqual({ stored: 0, queued: 3, processing: 0, completed: 0, failed: 0 });
    expect((await store.repos.documents.get(s2.id))?.errorCode).toBeNull();
    expect(await store.repos.documents.pendingDeployments()).toContain(d.id);
    expect(await store.repos.queueDepths.trainingQueue()).toBeGreaterThanOrEqual(3);
    expect(s1.status).toBe("stored");
  });

  test("two nodes claiming at once get disjoint documents, each counted as an attempt, and completion, deferral and failure are recorded", async () => {
    const a = ctx.store();
    const b = await ctx.node();
    const d = await deployment(a);
    const ids = new Set<string>();
    for (let i = 0; i < 12; i++) ids.add((await document(a, d.id, { name: `f${i}.txt` })).id);
    // both nodes claim small batches until the queue is empty (earlier tests' queued documents come first)
    const drain = async (node: typeof a) => {
      const got: Awaited<ReturnType<typeof node.repos.training.claim>> = [];
      const worker = uid("w");
      for (;;) {
        const batch = await node.repos.training.claim(worker, 3, 60_000);
        if (batch.length === 0) return got;
        got.push(...batch);
      }
    };
    const [x, y] = await Promise.all([drain(a), drain(b)]);
    const claimed = [...x, ...y];
    expect(new Set(claimed.map((r) => r.id)).size).toBe(claimed.length);
    const all = claimed.filter((r) => ids.has(r.id)).sort((p, q) => p.createdAt - q.createdAt || (p.id < q.id ? -1 : 1));
    expect(all.length).toBe(12);
    for (const r of all) expect(r).toMatchObject({ status: "processing", attempts: 1 });
    const [first, second, third] = all;
    await a.repos.documents.markCompleted(first?.id as string, 4);
    expect(await a.repos.documents.get(first?.id as string)).toMatchObject({ status: "completed", chunkCount: 4 });
    await a.repos.documents.deferQueued(second?.id as string, "waiting_for_embeddings", "Waiting.");
    expect(await a.repos.documents.get(second?.id as string)).toMatchObject({
      status: "queued",
      attempts: 0,
      errorCode: "waiting_for_embeddings",
    });
    await a.repos.documents.markFailed(third?.id as string, "document_unreadable", "Unreadable.");
    expect(await a.repos.documents.get(third?.id as string)).toMatchObject({ status: "failed", errorMessage: "Unreadable." });
    expect((await a.repos.training.claim(uid("w"), 1, 60_000)).map((r) => r.id)).toEqual([second?.id as string]);
    expect(await a.repos.training.claim(uid("w"), 1, 60_000)).toEqual([]);
  });

  test("deleting a row removes the document and its parts", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const doc = await document(store, d.id);
    await store.repos.documents.deleteRow(doc.id);
    expect(await store.repos.documents.get(doc.id)).toBeNull();
    expect(await store.repos.documents.partCount(doc.id, "chunks")).toBe(0);
    expect(await store.repos.documents.bytes(doc.id)).toBeNull();
  });
});

describeStores("documents: the owner's quota and the key's share", (ctx) => {
  test("the account's usage counts the owner's documents only; the key's share counts key pushes per deployment", async () => {
    const store = ctx.store();
    const a = await account(store);
    const d = await deployment(store, { accountId: a.id });
    const other = await deployment(store, { accountId: a.id });
    const docs = store.repos.documents;
    await document(store, d.id, { name: "handbook.txt", text: "12345" });
    await document(store, other.id, { name: "prices.txt", text: "123" });
    await document(store, d.id, { name: "sync-1.txt", text: "1234567", origin: "key" });
    await document(store, d.id, { name: "sync-2.txt", text: "12", origin: "key" });
    await document(store, other.id, { name: "sync-1.txt", text: "1", origin: "key" });
    expect(await docs.accountUsage(a.id, null)).toEqual({ documents: 2, bytes: 8 });
    expect(await docs.accountUsage(a.id, { deploymentId: d.id, name: "handbook.txt" })).toEqual({ documents: 1, bytes: 3 });
    expect(await docs.pushUsage(d.id, null)).toEqual({ documents: 2, bytes: 9 });
    expect(await docs.pushUsage(d.id, "sync-1.txt")).toEqual({ documents: 1, bytes: 2 });
    expect(await docs.pushUsage(other.id, null)).toEqual({ documents: 1, bytes: 1 });
    expect((await docs.findByName(d.id, "sync-1.txt")).map((x) => x.origin)).toEqual(["key"]);
  });
});
