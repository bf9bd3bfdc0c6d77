import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Embedder } from "../../../src/rag/embedder.ts";
import { createInThreadEmbedder, type EmbedderSpec } from "../../../src/rag/embedders/embedder-spec.ts";
import { createWorkerEmbedder } from "../../../src/rag/embedders/worker.embedder.ts";
import { createTinyModelFolder } from "../../fixtures/onnx/tiny-embedding-model.fixture.ts";

const parent = mkdtempSync(join(tmpdir(), "docchat-worker-"));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

// Feed-forward blocks make each batch cost tens to hundreds of milliseconds of CPU, like a small real encoder.
const heavy: EmbedderSpec = {
  kind: "onnx",
  options: { modelDir: createTinyModelFolder({ parentDir: parent, name: "heavy", ffnLayers: 4 }), batchSize: 16 },
};
const passages = Array.from({ length: 16 }, (_, i) => `passage ${i} ${"protein expression in mouse cells was measured ".repeat(30)}`);

/**
 * How often a 5 ms timer got to run while the passages were embedded: the event loop's turns. Counted, not timed:
 * inference held on the main thread leaves the timer no turn at all during the batch, however fast or busy the
 * machine, while a worker leaves it a turn every few milliseconds.
 */
async function loopTurns(e: Embedder): Promise<number> {
  await e.embedDocuments(passages.slice(0, 1));
  let turns = 0;
  const timer = setInterval(() => turns++, 5);
  await e.embedDocuments(passages);
  clearInterval(timer);
  return turns;
}

test("the worker gives the same vectors as the in-thread embedder and leaves the event loop its turns", async () => {
  const inThread = await createInThreadEmbedder(heavy);
  const worker = await createWorkerEmbedder(heavy);
  expect(worker.id).toBe(inThread.id);
  expect(worker.dimension).toBe(inThread.dimension);
  const [a] = await inThread.embedDocuments(passages.slice(0, 1));
  const [b] = await worker.embedDocuments(passages.slice(0, 1));
  expect(Array.from(b ?? [])).toEqual(Array.from(a ?? []));

  const inThreadTurns = await loopTurns(inThread);
  const workerTurns = await loopTurns(worker);
  // onnxruntime-node runs inference synchronously: in-thread, the batch is one stall the timer never interrupts
  expect(workerTurns).toBeGreaterThan(inThreadTurns);
  expect(workerTurns).toBeGreaterThanOrEqual(2);
  await inThread.close?.();
  await worker.close?.();
}, 120_000);

test("a worker that fails to load rejects with the loader's message, and a closed embedder refuses work", async () => {
  await expect(createWorkerEmbedder({ kind: "onnx", options: { modelDir: join(parent, "missing") } })).rejects.toThrow(
    /not a sentence-embedding model folder/,
  );
  const e = await createWorkerEmbedder({ kind: "onnx", options: { modelDir: join(parent, "heavy") } });
  await e.close?.();
  await expect(e.embedQuery("hello")).rejects.toThrow(/closed/);
});
