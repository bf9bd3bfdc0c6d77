/**
 * Retrieval latency at scale: synthetic chunks (sentences of SciFact abstracts recombined, ~90 words each) in ONE
 * deployment, queried with SciFact claims through the product's retrieve(): keyword-only (the default without an
 * embedder) and hybrid with random unit vectors (sqlite-vec cost does not depend on what the vectors mean; the
 * query embedding itself is excluded and measured by the embedders benchmark).
 */

import { percentile } from "./percentiles.ts";
import { benchRetriever, loadPassages, openBenchDeployment, precomputedEmbedder } from "./product-index.ts";
import type { Dataset } from "./scifact.dataset.ts";

export interface LatencyRow {
  chunks: number;
  mode: "keyword" | "hybrid";
  p50: number;
  p95: number;
  mean: number;
}

export function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function unitVector(dim: number, next: () => number): Float32Array {
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) {
    v[i] = next() - 0.5;
    n += (v[i] as number) ** 2;
  }
  const norm = Math.sqrt(n);
  for (let i = 0; i < dim; i++) v[i] = (v[i] as number) / norm;
  return v;
}

/** Synthetic chunks of ~90 words: SciFact abstract sentences recombined at random. */
export function synthesiser(ds: Dataset, next: () => number): () => string {
  const sentences = ds.corpus.flatMap((p) => p.text.split(/(?<=[.!?])\s+/)).filter((s) => s.length > 20);
  return () => {
    let text = "";
    while (text.split(" ").length < 90) text += `${sentences[Math.floor(next() * sentences.length)]} `;
    return text.trim();
  };
}

export async function retrievalLatency(
  ds: Dataset,
  sizes: number[],
  opts: { dimension: number; queries: number; log?: (m: unknown) => void },
): Promise<LatencyRow[]> {
  const next = rng(42);
  const synth = synthesiser(ds, next);
  const b = await openBenchDeployment();
  const rows: LatencyRow[] = [];
  try {
    const queries = ds.queries.slice(0, opts.queries);
    const qv = new Map(queries.map((q) => [q.text, unitVector(opts.dimension, next)]));
    const embedder = precomputedEmbedder("bench-random", opts.dimension, qv);
    let loaded = 0;
    await b.services.repos.chunkIndex.createVectorTable(opts.dimension);
    for (const size of sizes) {
      const t0 = performance.now();
      const passages = Array.from({ length: size - loaded }, (_, i) => ({
        source: `synthetic-${loaded + i}`,
        text: synth(),
        vector: unitVector(opts.dimension, next),
      }));
      await loadPassages(b, passages);
      loaded = size;
      opts.log?.({ loaded, loadSeconds: Math.round((performance.now() - t0) / 1000) });
      for (const mode of ["keyword", "hybrid"] as const) {
        const r = benchRetriever(b, { embedder: mode === "hybrid" ? embedder : null, vectorWeight: 1 });
        for (const q of queries.slice(0, 10)) await r.retrieve({ deploymentId: b.deploymentId, query: q.text, topK: 5, mode }); // warm-up
        const times: number[] = [];
        for (const q of queries) {
          const t = performance.now();
          await r.retrieve({ deploymentId: b.deploymentId, query: q.text, topK: 5, mode });
          times.push(performance.now() - t);
        }
        rows.push({
          chunks: size,
          mode,
          p50: percentile(times, 50),
          p95: percentile(times, 95),
          mean: times.reduce((a, x) => a + x, 0) / times.length,
        });
        opts.log?.(rows.at(-1));
      }
    }
  } finally {
    await b.close();
  }
  return rows;
}
