import { expect, test } from "bun:test";
import type { DeploymentPatch } from "../../../src/store/contract/index.ts";
import { searched } from "../../helpers/analyzed.ts";
import { describeStores } from "../../helpers/stores.ts";
import { account, chunk, deployment, document, uid, withVectorTable } from "./core-fixtures.ts";

describeStores("deployments", (ctx) => {
  test("a new deployment has the defaults SQLite gives it and reads back the same by id, by owner and in lists", async () => {
    const store = ctx.store();
    const owner = await account(store);
    const d = await deployment(store, { accountId: owner.id, published: false, name: "Handbook" });
    expect(d).toMatchObject({
      accountId: owner.id,
      name: "Handbook",
      kind: "docs",
      published: false,
      persona: "",
      temperature: 0.2,
      starterQuestions: [],
      qaPairs: [],
      handoffEnabled: false,
      ipAllow: [],
      keyManagesDocuments: false,
      pushEnabled: true,
      pushIpAllow: [],
      refusalThreshold: null,
      trainingStatus: "none",
      trainedAt: null,
    });
    expect(typeof d.createdAt).toBe("number");
    expect(await store.repos.deployments.findById(d.id)).toEqual(d);
    expect(await store.repos.deployments.findOwned(d.id, owner.id)).toEqual(d);
    expect(await store.repos.deployments.findOwned(d.id, owner.id + 1)).toBeNull();
    expect(await store.repos.deployments.findById("dep_missing")).toBeNull();
    // lists are ordered by creation time (then id): a later millisecond lists later
    while (Date.now() <= d.createdAt) await Bun.sleep(1);
    const second = await deployment(store, { accountId: owner.id, name: "Second" });
    expect((await store.repos.deployments.list(owner.id)).map((x) => x.id)).toEqual([d.id, second.id]);
    expect((await store.repos.deployments.list()).map((x) => x.id)).toEqual(expect.arrayContaining([d.id, second.id]));
  });

  test("an update changes only the fields given, keeps the rest and returns the new deployment; a missing one gives null", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const patch: DeploymentPatch = {
      published: false,
      temperature: 0.7,
      starterQuestions: ["Where?"],
      qaPairs: [{ question: "q", answer: "a" }],
      ipAllow: ["10.0.0.0/8"],
      handoffEnabled: true,
      keyManagesDocuments: true,
      pushEnabled: false,
      pushIpAllow: ["127.0.0.1"],
      refusalThreshold: 0.4,
    };
    const u = await store.repos.deployments.update(d.id, patch);
    expect(u).toMatchObject({ name: "Docs", ...patch });
    expect((await store.repos.deployments.update(d.id, { refusalThreshold: null }))?.refusalThreshold).toBeNull();
    expect(await store.repos.deployments.update("dep_missing", { name: "x" })).toBeNull();
  });

  test("a refusal threshold outside 0..1 is refused by the database", async () => {
    const d = await deployment(ctx.store());
    await expect(ctx.store().repos.deployments.update(d.id, { refusalThreshold: 1.5 })).rejects.toThrow();
  });

  test("a completed training status stamps trained_at; other statuses keep it", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    await store.repos.deployments.setTrainingStatus(d.id, "processing");
    expect(await store.repos.deployments.findById(d.id)).toMatchObject({ trainingStatus: "processing", trainedAt: null });
    await store.repos.deployments.setTrainingStatus(d.id, "completed");
    const done = await store.repos.deployments.findById(d.id);
    expect(done?.trainingStatus).toBe("completed");
    expect(done?.trainedAt).toBeGreaterThan(0);
    await store.repos.deployments.setTrainingStatus(d.id, "queued");
    expect((await store.repos.deployments.findById(d.id))?.trainedAt).toBe(done?.trainedAt as number);
  });

  test("removing a deployment removes its key, documents, chunks, keyword rows and vectors, and leaves others searchable", async () => {
    const store = ctx.store();
    const { chunkIndex, training } = store.repos;
    await withVectorTable(store, async () => {
      const gone = await deployment(store);
      const stays = await deployment(store);
      await store.repos.keys.put(gone.id, uid("hash"), "dc_gone");
      const worker = uid("worker");
      for (const d of [gone, stays]) await document(store, d.id);
      const claimed = await training.claim(worker, 10, 60_000);
      expect(claimed.length).toBeGreaterThanOrEqual(2);
      const items = claimed.map((doc) => ({ doc, chunks: [chunk("heron marsh heron", 0, new Float32Array([1, 0, 0]))] }));
      await training.completeBatch(worker, items, null);
      expect((await chunkIndex.keywordSearch(gone.id, searched("heron"), 5)).length).toBe(1);
      await store.repos.deployments.remove(gone.id);
      expect(await store.repos.deployments.findById(gone.id)).toBeNull();
      expect(await store.repos.keys.findForDeployment(gone.id)).toBeNull();
      expect(await store.repos.documents.list(gone.id)).toEqual([]);
      expect(await chunkIndex.keywordSearch(gone.id, searched("heron"), 5)).toEqual([]);
      expect(await chunkIndex.vectorSearch(gone.id, new Float32Array([1, 0, 0]), 5)).toEqual([]);
      expect((await chunkIndex.allChunks()).filter((c) => c.deploymentId === gone.id)).toEqual([]);
      expect(await store.repos.termStats.totalChunks(gone.id)).toBe(0);
      expect((await chunkIndex.keywordSearch(stays.id, searched("heron"), 5)).length).toBe(1);
      expect((await chunkIndex.vectorSearch(stays.id, new Float32Array([1, 0, 0]), 5)).length).toBe(1);
    });
  });
});
