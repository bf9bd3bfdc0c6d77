/**
 * What only the PostgreSQL training store has: leases. Nodes share the queue, so a claim expires unless renewed;
 * an expired claim is taken over (its partial rows removed in the claiming transaction) and the worker that lost
 * it can no longer write. (SQLite has one process per data dir: its claims never expire.)
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { PgStore } from "../../src/store/postgres/pg-store.ts";
import { searched } from "../helpers/analyzed.ts";
import { usePgNodes } from "../helpers/stores.ts";
import { chunk, deployment, document, uid } from "./contract/core-fixtures.ts";

const nodes = usePgNodes(2, { max: 4 });
let a: PgStore;
let b: PgStore;
beforeAll(() => {
  [a, b] = nodes as [PgStore, PgStore];
});

/** Every posting belongs to a chunk and every chunk's keyword statistics add up (nothing left by a removed claim). */
async function orphans(): Promise<number> {
  const [r] =
    (await a.sql`SELECT (SELECT count(*)::int FROM kw_postings p WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = p.chunk_id)) AS n`) as {
      n: number;
    }[];
  return r?.n ?? -1;
}

describe("PostgreSQL training leases", () => {
  test("an expired lease is claimed by another worker with its partial rows removed, and the worker that lost it can no longer write", async () => {
    const d = await deployment(a);
    const doc = await document(a, d.id, { name: "big.txt" });
    const dead = uid("dead");
    const [mine] = await a.repos.training.claim(dead, 1, 500);
    expect(mine?.id).toBe(doc.id);
    // the dead worker got halfway: one part published (keyword rows), one staged
    expect(await a.repos.training.stage(dead, doc, 0, 3, [chunk("gannet dive", 0)], null)).toHaveLength(1);
    expect(await a.repos.training.publish(dead, doc, 10)).toBe(1);
    expect(await a.repos.training.stage(dead, doc, 1, 3, [chunk("gannet nest", 1)], null)).toHaveLength(1);
    expect(await a.repos.chunkIndex.counts(doc.id)).toEqual({ chunks: 2, fts: 1, vec: 0 });

    // not before the lease runs out
    expect((await b.repos.training.claim(uid("early"), 10, 60_000)).map((x) => x.id)).not.toContain(doc.id);
    await Bun.sleep(550);
    const heir = uid("heir");
    const taken = (await b.repos.training.claim(heir, 10, 60_000)).find((x) => x.id === doc.id);
    expect(taken).toMatchObject({ status: "processing", attempts: 2 });
    expect(await b.repos.chunkIndex.counts(doc.id)).toEqual({ chunks: 0, fts: 0, vec: 0 });
    expect(await b.repos.termStats.totalChunks(d.id)).toBe(0);
    expect(await orphans()).toBe(0);

    // the dead worker wakes up: every write is refused
    expect(await a.repos.training.renew(dead, [doc.id], 60_000)).toEqual([doc.id]);
    expect(await a.repos.training.stage(dead, doc, 2, 3, [chunk("gannet late", 2)], null)).toBeNull();
    expect(await a.repos.training.publish(dead, doc, 10)).toBe(0);
    expect(await a.repos.training.finishLarge(dead, doc, [], 3)).toBe(false);
    expect(await a.repos.training.completeBatch(dead, [{ doc, chunks: [chunk("gannet stale")] }], null)).toEqual([]);
    await a.repos.training.fail(dead, doc, "training_failed", "late failure");
    await a.repos.training.defer(dead, doc, "waiting_for_embeddings", "late deferral");
    expect(await a.repos.documents.get(doc.id)).toMatchObject({ status: "processing", errorCode: null, attempts: 2 });
    expect(await a.repos.chunkIndex.counts(doc.id)).toEqual({ chunks: 0, fts: 0, vec: 0 });

    // the heir finishes it
    expect(await b.repos.training.completeBatch(heir, [{ doc: taken ?? doc, chunks: [chunk("gannet colony")] }], null)).toEqual([doc.id]);
    expect((await b.repos.chunkIndex.keywordSearch(d.id, searched("gannet"), 5)).length).toBe(1);
    expect((await b.repos.deployments.findById(d.id))?.trainingStatus).toBe("completed");
  });

  test("a renewed lease is not taken over", async () => {
    const d = await deployment(a);
    const doc = await document(a, d.id);
    const w = uid("w");
    expect((await a.repos.training.claim(w, 50, 100)).map((x) => x.id)).toContain(doc.id);
    await Bun.sleep(60);
    expect(await a.repos.training.renew(w, [doc.id], 60_000)).toEqual([]);
    await Bun.sleep(60);
    expect((await b.repos.training.claim(uid("other"), 50, 60_000)).map((x) => x.id)).not.toContain(doc.id);
  });

  test("recovery at start requeues expired claims with their rows removed and leaves live claims of other workers alone", async () => {
    const d = await deployment(a);
    const expired = await document(a, d.id, { name: "expired.txt" });
    const gone = uid("gone");
    expect((await a.repos.training.claim(gone, 50, 300)).map((x) => x.id)).toContain(expired.id);
    await a.repos.training.stage(gone, expired, 0, 2, [chunk("tern")], null);
    const live = await document(a, d.id, { name: "live.txt" });
    const alive = uid("alive");
    expect((await b.repos.training.claim(alive, 50, 60_000)).map((x) => x.id)).toEqual([live.id]);
    await Bun.sleep(350);
    expect(await b.repos.training.recoverInterrupted(uid("starting"))).toBeGreaterThanOrEqual(1);
    expect(await a.repos.documents.get(expired.id)).toMatchObject({ status: "queued" });
    expect(await a.repos.chunkIndex.counts(expired.id)).toEqual({ chunks: 0, fts: 0, vec: 0 });
    expect(await a.repos.documents.get(live.id)).toMatchObject({ status: "processing" });
    // a worker restarting under the same name recovers its own claims at once
    expect(await b.repos.training.recoverInterrupted(alive)).toBe(1);
    expect(await a.repos.documents.get(live.id)).toMatchObject({ status: "queued" });
  });

  test("removing a document while another node completes it leaves no rows and no deadlock", async () => {
    const d = await deployment(a);
    const docs = await Promise.all(Array.from({ length: 6 }, (_, i) => document(a, d.id, { name: `c${i}.txt` })));
    const w = uid("w");
    const claimed = (await a.repos.training.claim(w, 100, 60_000)).filter((x) => docs.some((y) => y.id === x.id));
    expect(claimed.length).toBe(6);
    const [done] = await Promise.all([
      a.repos.training.completeBatch(
        w,
        claimed.map((doc) => ({ doc, chunks: [chunk(`shearwater ${doc.name}`)] })),
        null,
      ),
      ...claimed.filter((_, i) => i % 2 === 0).map((x) => b.repos.training.removeDocument(x.id, d.id)),
    ]);
    const left = await a.repos.documents.list(d.id);
    expect(left.every((x) => x.status === "completed")).toBe(true);
    expect(done.filter((id) => left.some((x) => x.id === id)).length).toBe(left.length);
    const chunks = (await a.repos.chunkIndex.allChunks()).filter((c) => c.deploymentId === d.id);
    expect(chunks.map((c) => c.documentId).sort()).toEqual(left.map((x) => x.id).sort());
    expect(await a.repos.termStats.totalChunks(d.id)).toBe(left.length);
    expect(await orphans()).toBe(0);
  });
});
