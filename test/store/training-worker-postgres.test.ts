/**
 * The product's training worker (documents/training.worker.ts) on the PostgreSQL store, two nodes at once: every
 * queued document, small or large (staged in parts), is trained exactly once, and the index adds up.
 */
import { describe, expect, test } from "bun:test";
import { createTrainingWorker } from "../../src/documents/training.worker.ts";
import { createLogger } from "../../src/log.ts";
import type { PgStore } from "../../src/store/postgres/pg-store.ts";
import { searched } from "../helpers/analyzed.ts";
import { usePgNodes } from "../helpers/stores.ts";
import { deployment, uid } from "./contract/core-fixtures.ts";

const nodes = usePgNodes(2, { max: 4 });

const line = (ord: number, text: string) => `${JSON.stringify({ ord, text, headingPath: "", tokenCount: text.split(" ").length })}\n`;

describe("training worker on PostgreSQL", () => {
  test("two nodes' workers train every queued document once, small ones in batches and large ones staged part by part", async () => {
    const [a, b] = nodes as [PgStore, PgStore];
    const d = await deployment(a);
    const expected = new Map<string, number>();
    // a queued TXT document, its chunks given inline or (a large one) stored in parts beforehand
    const queueTxt = (id: string, name: string, content: { bytes: Uint8Array; chunks: string } | { size: number }) =>
      a.repos.documents.insert({ id, deploymentId: d.id, name, kind: "txt", contentHash: id, pages: null, queue: true, replaceOnTrain: false, ...content });
    for (let i = 0; i < 30; i++) {
      const id = uid("doc");
      await queueTxt(id, `small-${i}.txt`, {
        bytes: new TextEncoder().encode(`small ${i}`),
        chunks: line(0, `kestrel small ${i}`) + line(1, `merlin small ${i}`),
      });
      expected.set(id, 2);
    }
    for (let i = 0; i < 3; i++) {
      const id = uid("doc");
      for (let seq = 0; seq < 4; seq++)
        await a.repos.documents.insertPart(
          id,
          "chunks",
          seq,
          line(2 * seq, `harrier large ${i} part ${seq}`) + line(2 * seq + 1, `osprey large ${i}`),
        );
      await queueTxt(id, `large-${i}.txt`, { size: 1 });
      expected.set(id, 8);
    }
    const log = createLogger("error", () => {});
    const workers = [a, b].map((s) =>
      createTrainingWorker({
        documents: s.repos.documents,
        training: s.repos.training,
        index: s.repos.chunkIndex,
        embedder: async () => null,
        log,
        chunking: { maxTokens: 200, overlapTokens: 0 },
        leaseMs: 30_000,
      }),
    );
    await Promise.all(workers.map((w) => w.runUntilIdle({ merge: false })));

    const docs = await a.repos.documents.list(d.id);
    expect(docs.length).toBe(33);
    for (const doc of docs)
      expect({ id: doc.id, status: doc.status, chunks: doc.chunkCount }).toEqual({
        id: doc.id,
        status: "completed",
        chunks: expected.get(doc.id) as number,
      });
    const chunks = (await a.repos.chunkIndex.allChunks()).filter((c) => c.deploymentId === d.id);
    expect(chunks.length).toBe(30 * 2 + 3 * 8);
    for (const [id, n] of expected) expect(await a.repos.chunkIndex.counts(id)).toEqual({ chunks: n, fts: n, vec: 0 });
    expect(await b.repos.termStats.totalChunks(d.id)).toBe(84);
    expect((await b.repos.chunkIndex.keywordSearch(d.id, searched("harrier"), 50)).length).toBe(12);
    expect((await a.repos.deployments.findById(d.id))?.trainingStatus).toBe("completed");
  });

  test("a worker whose document takes longer than its lease keeps it by renewing: another node never takes it over", async () => {
    const [a, b] = nodes as [PgStore, PgStore];
    const d = await deployment(a);
    const id = uid("doc");
    await a.repos.documents.insert({
      id,
      deploymentId: d.id,
      name: "slow.txt",
      kind: "txt",
      contentHash: id,
      bytes: new TextEncoder().encode("slow"),
      chunks: line(0, "a slow embedding of a puffin"),
      pages: null,
      queue: true,
      replaceOnTrain: false,
    });
    let embedded = 0;
    // embedding takes four leases' time
    const slow = {
      id: "slow-embedder",
      dimension: 3,
      async embedDocuments(texts: string[]) {
        embedded += texts.length;
        await Bun.sleep(2400);
        return texts.map(() => new Float32Array([1, 0, 0]));
      },
      embedQuery: async () => new Float32Array([1, 0, 0]),
    };
    const worker = (s: PgStore) =>
      createTrainingWorker({
        documents: s.repos.documents,
        training: s.repos.training,
        index: s.repos.chunkIndex,
        embedder: async () => slow,
        log: createLogger("error", () => {}),
        chunking: { maxTokens: 200, overlapTokens: 0 },
        leaseMs: 600,
      });
    const first = worker(a).runUntilIdle({ merge: false });
    await Bun.sleep(1500); // two and a half leases in: without renewal the claim would have expired
    await worker(b).runUntilIdle({ merge: false });
    await first;
    expect(embedded).toBe(1);
    expect((await a.repos.documents.get(id))?.status).toBe("completed");
    expect(await a.repos.chunkIndex.counts(id)).toEqual({ chunks: 1, fts: 1, vec: 0 });
  });
});
