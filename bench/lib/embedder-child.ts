/**
 * One embedder measured in its own process, so load time and peak RSS belong to that embedder alone and a
 * crash or a 1 GB parse cannot skew the others. Started by bench/embedders.bench.ts with one JSON argument.
 *   embed:      vectors for a shard of the corpus (and the queries) → <out>.corpus.f32, <out>.queries.f32, <out>.json
 *   throughput: passages/s per batch size and the worst event-loop stall, in-thread and through the worker
 */
import { writeFileSync } from "node:fs";
import type { EmbedderSpec } from "../../src/rag/embedders/embedder-spec.ts";
import { createInThreadEmbedder } from "../../src/rag/embedders/embedder-spec.ts";
import { createWorkerEmbedder } from "../../src/rag/embedders/worker.embedder.ts";
import { watchEventLoopLag } from "./event-loop-lag.ts";
import { loadAverage, peakRssMb } from "./machine-info.ts";
import { loadScifact, passageText } from "./scifact.dataset.ts";

export type ChildJob =
  | { mode: "embed"; spec: EmbedderSpec; shard: number; shards: number; withQueries: boolean; queryLimit?: number; out: string }
  | { mode: "throughput"; spec: EmbedderSpec; batchSizes: number[]; sample: number; out: string };

export interface EmbedResult {
  id: string;
  dimension: number;
  loadMs: number;
  count: number;
  corpusMs: number;
  peakRssMb: number;
  loadAverage?: number;
}

export interface ThroughputResult {
  id: string;
  dimension: number;
  loadMs: number;
  /** cpuMsPerPassage counts every thread's CPU time, so it stays meaningful when other jobs share the machine */
  batches: { batchSize: number; perSec: number; cpuMsPerPassage: number; worstStallMs: number }[];
  worker: { perSec: number; worstStallMs: number };
  /** median time to embed one claim in-thread: the latency a question pays before retrieval */
  queryMedianMs: number;
  peakRssMb: number;
  /** 1-minute load average when the measurement ended: above the core count, other jobs were competing */
  loadAverage: number;
}

function concatVectors(vectors: Float32Array[]): Uint8Array {
  const dim = vectors[0]?.length ?? 0;
  const all = new Float32Array(vectors.length * dim);
  vectors.forEach((v, i) => {
    all.set(v, i * dim);
  });
  return new Uint8Array(all.buffer);
}

async function embed(job: Extract<ChildJob, { mode: "embed" }>): Promise<void> {
  const ds = await loadScifact({ queryLimit: job.queryLimit });
  const t0 = performance.now();
  const embedder = await createInThreadEmbedder(job.spec);
  const loadMs = performance.now() - t0;
  const shard = ds.corpus.filter((_, i) => i % job.shards === job.shard).map(passageText);
  const t1 = performance.now();
  const vectors = await embedder.embedDocuments(shard);
  const corpusMs = performance.now() - t1;
  writeFileSync(`${job.out}.corpus.f32`, concatVectors(vectors));
  if (job.withQueries) {
    const queries: Float32Array[] = [];
    for (const q of ds.queries) queries.push(await embedder.embedQuery(q.text));
    writeFileSync(`${job.out}.queries.f32`, concatVectors(queries));
  }
  const result: EmbedResult = {
    id: embedder.id,
    dimension: embedder.dimension,
    loadMs,
    count: shard.length,
    corpusMs,
    peakRssMb: peakRssMb(),
    loadAverage: loadAverage(),
  };
  await embedder.close?.();
  writeFileSync(`${job.out}.json`, JSON.stringify(result));
}

async function throughput(job: Extract<ChildJob, { mode: "throughput" }>): Promise<void> {
  const ds = await loadScifact();
  const texts = ds.corpus.slice(0, job.sample).map(passageText);
  const largest = Math.max(...job.batchSizes);
  const withBatch = (batchSize: number): EmbedderSpec => ({ ...job.spec, options: { ...job.spec.options, batchSize } }) as EmbedderSpec;
  const t0 = performance.now();
  const embedder = await createInThreadEmbedder(withBatch(largest));
  const loadMs = performance.now() - t0;
  await embedder.embedDocuments(texts.slice(0, 2)); // warm-up: first-run allocations are not throughput
  const batches: ThroughputResult["batches"] = [];
  for (const batchSize of job.batchSizes) {
    const lag = watchEventLoopLag();
    const t1 = performance.now();
    const cpu = process.cpuUsage();
    for (let i = 0; i < texts.length; i += batchSize) await embedder.embedDocuments(texts.slice(i, i + batchSize));
    const { user, system } = process.cpuUsage(cpu);
    batches.push({
      batchSize,
      perSec: (texts.length * 1000) / (performance.now() - t1),
      cpuMsPerPassage: (user + system) / 1000 / texts.length,
      worstStallMs: lag.stop(),
    });
  }
  const queryMs: number[] = [];
  for (const q of ds.queries.slice(0, 21)) {
    const t = performance.now();
    await embedder.embedQuery(q.text);
    queryMs.push(performance.now() - t);
  }
  const queryMedianMs = queryMs.sort((a, b) => a - b)[Math.floor(queryMs.length / 2)] ?? 0;
  await embedder.close?.();
  const worker = await createWorkerEmbedder(job.spec);
  await worker.embedDocuments(texts.slice(0, 2));
  const lag = watchEventLoopLag();
  const t2 = performance.now();
  await worker.embedDocuments(texts);
  const workerResult = { perSec: (texts.length * 1000) / (performance.now() - t2), worstStallMs: lag.stop() };
  await worker.close?.();
  const result: ThroughputResult = {
    id: embedder.id,
    dimension: embedder.dimension,
    loadMs,
    batches,
    worker: workerResult,
    queryMedianMs,
    peakRssMb: peakRssMb(),
    loadAverage: loadAverage(),
  };
  writeFileSync(`${job.out}.json`, JSON.stringify(result));
}

const job = JSON.parse(process.argv[2] ?? "{}") as ChildJob;
if (job.mode === "embed") await embed(job);
else if (job.mode === "throughput") await throughput(job);
else throw new Error("usage: bun bench/lib/embedder-child.ts '<json job>'");
