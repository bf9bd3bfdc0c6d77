/**
 * Retrieval latency at scale: synthetic chunks (sentences of SciFact abstracts recombined, ~90 words each) in ONE
 * deployment, queried with SciFact claims through the product's retrieve(): keyword-only (the default without an
 * embedder), hybrid as the product searches vectors (exact up to EXACT_MAX chunks, binary codes held in memory +
 * rescoring above), with sqlite-vec's KNN over the same codes (the path before codes were held), and with exact
 * KNN always (the path before codes), in the same run. Vectors: the hashed
 * bag-of-words embedder (real, if weak, structure: what quantization's recall depends on), 384-d; the query
 * embedding itself is excluded. Recall@10 of the product's vector search against exact search, same queries.
 */

import type { ChunkIndexStore } from "../../src/store/contract/index.ts";
import { createVectorStore } from "../../src/store/sqlite/vector-search.sqlite.ts";
import { sqliteDb } from "../../test/helpers/test-sql.ts";
import { createHashedEmbedder } from "./hashed-embedder.ts";
import { percentile } from "./percentiles.ts";
import { benchRetriever, loadPassages, openBenchDeployment, precomputedEmbedder } from "./product-index.ts";
import type { Dataset } from "./scifact.dataset.ts";

export interface LatencyRow {
  chunks: number;
  mode: "keyword" | "hybrid" | "hybrid-codes-sqlite-vec" | "hybrid-exact" | "vector" | "vector-codes-sqlite-vec" | "vector-exact";
  /** vector rows: recall@10 against exact search */
  recall10?: number;
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

/** The --sizes flag: corpus sizes in chunks, comma-separated ("10000,100000"). */
export const chunkSizes = (flag: string | undefined): number[] =>
  (flag ?? "")
    .split(",")
    .map(Number)
    .filter((n) => n > 0);

export async function retrievalLatency(
  ds: Dataset,
  sizes: number[],
  opts: { dimension: number; queries: number; log?: (m: unknown) => void },
): Promise<LatencyRow[]> {
  const next = rng(42);
  const synth = synthesiser(ds, next);
  const b = await openBenchDeployment();
  const rows: LatencyRow[] = [];
  const stats = (times: number[]) => ({
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    mean: times.reduce((a, x) => a + x, 0) / times.length,
  });
  try {
    const queries = ds.queries.slice(0, opts.queries);
    const hashed = createHashedEmbedder(opts.dimension);
    const qv = new Map(queries.map((q, i) => [q.text, i]));
    const queryVectors = await hashed.embedDocuments(queries.map((q) => q.text));
    const embedder = precomputedEmbedder(hashed.id, opts.dimension, new Map([...qv].map(([t, i]) => [t, queryVectors[i] as Float32Array])));
    const product = b.services.repos.chunkIndex;
    const vectors = createVectorStore(sqliteDb(b.services));
    // the same index with exact KNN at every size: the path before binary codes
    const exactIndex: ChunkIndexStore = {
      ...product,
      vectorSearch: async (d, q, k) => vectors.exact(d, q, k),
    };
    const codesIndex: ChunkIndexStore = {
      ...product,
      vectorSearch: async (d, q, k) => vectors.quantized(d, q, k),
    };
    let loaded = 0;
    await product.createVectorTable(opts.dimension);
    for (const size of sizes) {
      const t0 = performance.now();
      const texts = Array.from({ length: size - loaded }, () => synth());
      const passages = [];
      for (let i = 0; i < texts.length; i += 1000) {
        const part = texts.slice(i, i + 1000);
        const vs = await hashed.embedDocuments(part);
        passages.push(...part.map((text, j) => ({ source: `synthetic-${loaded + i + j}`, text, vector: vs[j] })));
      }
      await loadPassages(b, passages);
      loaded = size;
      opts.log?.({ loaded, loadSeconds: Math.round((performance.now() - t0) / 1000) });
      for (const mode of ["keyword", "hybrid", "hybrid-codes-sqlite-vec", "hybrid-exact"] as const) {
        const r = benchRetriever(b, {
          embedder: mode === "keyword" ? null : embedder,
          vectorWeight: 1,
          index: mode === "hybrid-exact" ? exactIndex : mode === "hybrid-codes-sqlite-vec" ? codesIndex : product,
        });
        const m = mode === "keyword" ? "keyword" : "hybrid";
        for (const q of queries.slice(0, 10)) await r.retrieve({ deploymentId: b.deploymentId, query: q.text, topK: 5, mode: m }); // warm-up
        const times: number[] = [];
        for (const q of queries) {
          const t = performance.now();
          await r.retrieve({ deploymentId: b.deploymentId, query: q.text, topK: 5, mode: m });
          times.push(performance.now() - t);
        }
        rows.push({ chunks: size, mode, ...stats(times) });
        opts.log?.(rows.at(-1));
      }
      // the vector search alone (50 candidates, as retrieval asks), and recall@10 against exact search
      const tProduct: number[] = [];
      const tCodes: number[] = [];
      const tExact: number[] = [];
      let found = 0;
      let foundCodes = 0;
      for (const v of queryVectors) {
        let t = performance.now();
        const exact = vectors.exact(b.deploymentId, v, 50);
        tExact.push(performance.now() - t);
        t = performance.now();
        const got = new Set((await product.vectorSearch(b.deploymentId, v, 50)).slice(0, 10).map((h) => h.id));
        tProduct.push(performance.now() - t);
        t = performance.now();
        const viaCodes = new Set((await codesIndex.vectorSearch(b.deploymentId, v, 50)).slice(0, 10).map((h) => h.id));
        tCodes.push(performance.now() - t);
        found += exact.slice(0, 10).filter((h) => got.has(h.id)).length;
        foundCodes += exact.slice(0, 10).filter((h) => viaCodes.has(h.id)).length;
      }
      rows.push({ chunks: size, mode: "vector", recall10: found / (10 * queryVectors.length), ...stats(tProduct) });
      rows.push({ chunks: size, mode: "vector-codes-sqlite-vec", recall10: foundCodes / (10 * queryVectors.length), ...stats(tCodes) });
      rows.push({ chunks: size, mode: "vector-exact", recall10: 1, ...stats(tExact) });
      opts.log?.(rows.at(-3));
      opts.log?.(rows.at(-2));
    }
  } finally {
    await b.close();
  }
  return rows;
}
