/**
 * SciFact corpus and claim vectors per embedder, computed by embedder-child.ts in separate processes and cached in
 * .tmp/bench-embedders under the same names bench/embedders.bench.ts uses, so either benchmark can reuse the other's.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { EmbedderSpec } from "../../src/rag/embedders/embedder-spec.ts";
import type { ChildJob, EmbedResult } from "./embedder-child.ts";

export const VECTORS_DIR = join(import.meta.dir, "../../.tmp/bench-embedders");
const CHILD = join(import.meta.dir, "embedder-child.ts");

export interface EmbedderCandidate {
  name: string;
  spec: EmbedderSpec;
  /** parallel processes for the corpus (single-threaded engines only) */
  shards: number;
}

export interface CorpusVectors {
  id: string;
  dimension: number;
  corpus: Float32Array[];
  queries: Float32Array[];
  computedMs?: number;
}

const fileName = (name: string) => name.replace(/[^\w.-]+/g, "_");

async function readVectors(path: string, dim: number): Promise<Float32Array[]> {
  const all = new Float32Array(await Bun.file(path).arrayBuffer());
  return Array.from({ length: all.length / dim }, (_, i) => all.subarray(i * dim, (i + 1) * dim));
}

async function runChild(job: ChildJob): Promise<void> {
  const proc = Bun.spawn(["bun", CHILD, JSON.stringify(job)], { stdout: "inherit", stderr: "inherit" });
  if ((await proc.exited) !== 0) throw new Error(`embedder child failed: ${JSON.stringify(job.spec)}`);
}

/** Vectors for the whole corpus (corpus order) and every judged claim (file order); cached unless `fresh`. */
export async function scifactVectors(c: EmbedderCandidate, corpusSize: number, opts: { fresh?: boolean } = {}): Promise<CorpusVectors> {
  mkdirSync(VECTORS_DIR, { recursive: true });
  const base = join(VECTORS_DIR, fileName(c.name));
  const outs = Array.from({ length: c.shards }, (_, s) => `${base}.all.shard${s}of${c.shards}`);
  const cached = !opts.fresh && outs.every((o) => existsSync(`${o}.json`));
  const t0 = performance.now();
  if (!cached) {
    await Promise.all(
      outs.map((out, shard) => runChild({ mode: "embed", spec: c.spec, shard, shards: c.shards, withQueries: shard === 0, out })),
    );
  }
  const metas = await Promise.all(outs.map(async (o) => (await Bun.file(`${o}.json`).json()) as EmbedResult));
  const dim = metas[0]?.dimension ?? 0;
  const shards = await Promise.all(outs.map((o) => readVectors(`${o}.corpus.f32`, dim)));
  // Shard s holds corpus positions s, s+shards, …: interleave back into corpus order.
  const corpus = Array.from({ length: corpusSize }, (_, i) => shards[i % c.shards]?.[Math.floor(i / c.shards)] ?? new Float32Array(dim));
  const queries = await readVectors(`${outs[0]}.queries.f32`, dim);
  return { id: metas[0]?.id ?? c.name, dimension: dim, corpus, queries, computedMs: cached ? undefined : performance.now() - t0 };
}
