import { expect, test } from "bun:test";
import { BATCH_DOCUMENTS, createBatchingPrepare } from "../../src/ingest/parse-batching.ts";
import type { BatchOutcome, PreparedDocument, PrepareRequest } from "../../src/ingest/parse-pool.ts";

const done = (path: string): PreparedDocument => ({
  meta: { kind: "txt", pages: null, chunks: 1, ocrPages: 0, ocrConfidence: null, notes: [] },
  inline: path,
});

/** A pool of `size` workers whose batches finish when the test says so. */
function fakePool(size: number, opts: { failBatches?: boolean } = {}) {
  const batches: { paths: string[]; finish: () => void }[] = [];
  const singles: string[] = [];
  let out = 0;
  let mostOut = 0;
  return {
    batches,
    singles,
    mostOut: () => mostOut,
    pool: {
      size,
      async prepare(r: PrepareRequest) {
        singles.push(r.path);
        return done(r.path);
      },
      prepareBatch(requests: PrepareRequest[]) {
        mostOut = Math.max(mostOut, ++out);
        return new Promise<BatchOutcome[]>((resolve, reject) => {
          const finish = () => {
            out--;
            if (opts.failBatches) reject(new Error("the worker died"));
            else resolve(requests.map((r) => ({ ok: true, prepared: done(r.path) })));
          };
          batches.push({ paths: requests.map((r) => r.path), finish });
        });
      },
    },
  };
}

const ask = (prepare: (r: PrepareRequest) => Promise<PreparedDocument>, i: number) => prepare({ path: `f${i}`, start: 0, end: 100 });
const tick = () => new Promise<void>((r) => setImmediate(r));

test("files asked for a few at a time wait while the workers are busy, and then go in full batches", async () => {
  const f = fakePool(1);
  const prepare = createBatchingPrepare(f.pool);
  const results: Promise<PreparedDocument>[] = [];
  // a bulk load's readers ask in dribs: three files a turn of the event loop
  for (let i = 0; i < 5 * BATCH_DOCUMENTS; i++) {
    results.push(ask(prepare, i));
    if (i % 3 === 2) await tick();
  }
  await tick();
  // two batches a worker are out (one running, one sent ahead); the rest wait
  expect(f.batches.length).toBe(2);
  while (f.batches.some((b) => b.finish !== undefined)) {
    const next = f.batches.find((b) => b.finish !== undefined) as { finish?: () => void };
    const finish = next.finish as () => void;
    next.finish = undefined;
    finish();
    await tick();
    await tick();
  }
  expect((await Promise.all(results)).map((p) => p.inline)).toEqual(results.map((_, i) => `f${i}`));
  expect(f.mostOut()).toBe(2);
  // after the first two, every batch but the last is full
  expect(f.batches.slice(2, -1).every((b) => b.paths.length === BATCH_DOCUMENTS)).toBe(true);
});

test("a batch the worker fails as a whole is prepared again one file at a time", async () => {
  const f = fakePool(2, { failBatches: true });
  const prepare = createBatchingPrepare(f.pool);
  const results = Array.from({ length: 5 }, (_, i) => ask(prepare, i));
  await tick();
  expect(f.batches.map((b) => b.paths.length)).toEqual([5]);
  f.batches[0]?.finish();
  expect((await Promise.all(results)).map((p) => p.inline)).toEqual(["f0", "f1", "f2", "f3", "f4"]);
  expect(f.singles).toEqual(["f0", "f1", "f2", "f3", "f4"]);
});
