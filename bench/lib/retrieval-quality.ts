/**
 * SciFact retrieval quality through the product: the abstracts are written into a real deployment (one chunk per
 * abstract, FTS5 + sqlite-vec rows) and every claim goes through the product's retrieve() — keyword-only,
 * vector-only and hybrid (weighted RRF) for each embedder.
 */
import type { RetrievalMode } from "../../src/rag/retrieval.types.ts";
import { benchRetriever, loadPassages, openBenchDeployment, precomputedEmbedder } from "./product-index.ts";
import { type RunScores, scoreRun } from "./retrieval.metrics.ts";
import { type Dataset, passageText } from "./scifact.dataset.ts";
import { type EmbedderCandidate, scifactVectors } from "./scifact-vectors.ts";

export interface QualityRow {
  method: string;
  embedder: string | null;
  mode: RetrievalMode;
  vectorWeight?: number;
  scores: RunScores;
  msPerQuery: number;
}

const TOP_K = 10;

async function runMode(ds: Dataset, retrieve: (q: string) => Promise<string[]>): Promise<{ scores: RunScores; msPerQuery: number }> {
  const run = new Map<string, string[]>();
  const t0 = performance.now();
  for (const q of ds.queries) run.set(q.id, await retrieve(q.text));
  const msPerQuery = (performance.now() - t0) / ds.queries.length;
  return {
    scores: scoreRun(
      run,
      ds.qrels,
      ds.queries.map((q) => q.id),
    ),
    msPerQuery,
  };
}

export async function scifactQuality(
  ds: Dataset,
  embedders: EmbedderCandidate[],
  weights: number[],
  log = console.log,
): Promise<QualityRow[]> {
  const rows: QualityRow[] = [];
  const keywordDep = await openBenchDeployment();
  await loadPassages(
    keywordDep,
    ds.corpus.map((p) => ({ source: p.id, text: passageText(p) })),
  );
  const kw = benchRetriever(keywordDep, { embedder: null });
  const ids = (hits: { source: string }[]) => hits.map((h) => h.source);
  const k = await runMode(ds, async (q) =>
    ids((await kw.retrieve({ deploymentId: keywordDep.deploymentId, query: q, topK: TOP_K, mode: "keyword" })).hits),
  );
  rows.push({ method: "keyword only (FTS5 BM25)", embedder: null, mode: "keyword", ...k });
  log(rows.at(-1));
  await keywordDep.close();

  for (const c of embedders) {
    let vectors: Awaited<ReturnType<typeof scifactVectors>>;
    try {
      vectors = await scifactVectors(c, ds.corpus.length);
    } catch (e) {
      log(`skipping ${c.name}: ${(e as Error).message}`);
      continue;
    }
    const dep = await openBenchDeployment();
    await loadPassages(
      dep,
      ds.corpus.map((p, i) => ({ source: p.id, text: passageText(p), vector: vectors.corpus[i] })),
      { dimension: vectors.dimension },
    );
    const queryVectors = new Map(ds.queries.map((q, i) => [q.text, vectors.queries[i] ?? new Float32Array(vectors.dimension)]));
    const embedder = precomputedEmbedder(vectors.id, vectors.dimension, queryVectors);
    const vec = benchRetriever(dep, { embedder, vectorWeight: 1 });
    const v = await runMode(ds, async (q) =>
      ids((await vec.retrieve({ deploymentId: dep.deploymentId, query: q, topK: TOP_K, mode: "vector" })).hits),
    );
    rows.push({ method: `${c.name}: vector only`, embedder: c.name, mode: "vector", ...v });
    log(rows.at(-1));
    for (const w of weights) {
      const r = benchRetriever(dep, { embedder, vectorWeight: w });
      const h = await runMode(ds, async (q) =>
        ids((await r.retrieve({ deploymentId: dep.deploymentId, query: q, topK: TOP_K, mode: "hybrid" })).hits),
      );
      rows.push({ method: `${c.name}: hybrid RRF, keyword 1 : vector ${w}`, embedder: c.name, mode: "hybrid", vectorWeight: w, ...h });
      log(rows.at(-1));
    }
    await dep.close();
  }
  return rows;
}
