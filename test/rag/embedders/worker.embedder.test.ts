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

/** Longest gap between 5 ms timer ticks while the passages are embedded, counting the gap up to the end. */
async function worstStall(e: Embedder): Promise<number> {
  await e.embedDocuments(passages.slice(0, 1));
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    worst = Math.max(worst, performance.now() - last - 5);
    last = performance.now();
  }, 5);
  await e.embedDocuments(passages);
  clearInterval(timer);
  return Math.max(worst, performance.now() - last - 5);
}

test("the worker gives the same vectors as the in-thread embedder without stalling the event loop", async () => {
  const inThread = await createInThreadEmbedder(heavy);
  const worker = await createWorkerEmbedder(heavy);
  expect(worker.id).toBe(inThread.id);
  expect(worker.dimension).toBe(inThread.dimension);
  const [a] = await inThread.embedDocuments(passages.slice(0, 1));
  const [b] = await worker.embedDocuments(passages.slice(0, 1));
  expect(Array.from(b ?? [])).toEqual(Array.from(a ?? []));

  const inThreadStall = await worstStall(inThread);
  const workerStall = await worstStall(worker);
  // onnxruntime-node runs inference synchronously: in-thread, the whole batch is one stall.
  expect(workerStall).toBeLessThan(Math.max(50, inThreadStall / 3));
  await inThread.close?.();
  await worker.close?.();
});

test("a worker that fails to load rejects with the loader's message, and a closed embedder refuses work", async () => {
  await expect(createWorkerEmbedder({ kind: "onnx", options: { modelDir: join(parent, "missing") } })).rejects.toThrow(
    /not a sentence-embedding model folder/,
  );
  const e = await createWorkerEmbedder({ kind: "onnx", options: { modelDir: join(parent, "heavy") } });
  await e.close?.();
  await expect(e.embedQuery("hello")).rejects.toThrow(/closed/);
});
