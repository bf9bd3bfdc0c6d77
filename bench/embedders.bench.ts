/**
 * Embedders and retrieval quality on BEIR SciFact (train claims): keyword-only BM25 (FTS5), vector-only per
 * embedder, and hybrid RRF per embedder; plus each embedder's load time, throughput, event-loop stalls and RSS.
 * This decides the product's default embedder.
 *
 *   bun bench/embedders.bench.ts [--limit N] [--models-dir DIR] [--only onnx:NAME] [--reuse] [--no-write]
 *
 * --limit N keeps the first N judged claims (the corpus is always whole). --reuse keeps vectors from an earlier
 * run in .tmp/bench-embedders. ONNX model folders found in --models-dir (default ./models) are measured too; a
 * synthetic MiniLM-sized ONNX graph (random weights) is always timed, for cost only.
 */
import { mkdirSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { EmbedderSpec } from "../src/rag/embedders/embedder-spec.ts";
import { findModelFolders } from "../src/rag/embedders/onnx-model-folder.ts";
import { createTinyModelFolder } from "../test/fixtures/onnx/tiny-embedding-model.fixture.ts";
import { replaceSection } from "./lib/benchmarks-md.ts";
import type { ChildJob, EmbedResult, ThroughputResult } from "./lib/embedder-child.ts";
import { createFts5Bm25Index } from "./lib/fts5-bm25.index.ts";
import { describeMachine, loadAverage } from "./lib/machine-info.ts";
import { type RunScores, scoreRun } from "./lib/retrieval.metrics.ts";
import { rrfFuse } from "./lib/rrf.fusion.ts";
import { loadScifact, passageText } from "./lib/scifact.dataset.ts";
import { createVectorIndex } from "./lib/vector.index.ts";

const { values: args } = parseArgs({
  options: {
    limit: { type: "string" },
    "models-dir": { type: "string", default: "models" },
    only: { type: "string" },
    reuse: { type: "boolean", default: false },
    "no-write": { type: "boolean", default: false },
  },
});
const ROOT = join(import.meta.dir, "..");
const WORK = join(ROOT, ".tmp/bench-embedders");
const CHILD = join(import.meta.dir, "lib/embedder-child.ts");
const HYBRID_VECTOR_WEIGHTS = [1, 0.5, 0.25]; // vector list weight; the BM25 list always weighs 1
const THROUGHPUT_SAMPLE = 96;
const BATCH_SIZES = [1, 8, 32];
mkdirSync(WORK, { recursive: true });

interface Candidate {
  name: string;
  spec: EmbedderSpec;
  /** parallel processes for the corpus: only for single-threaded engines, where they don't contend */
  shards: number;
  quality: boolean;
}

function candidates(): Candidate[] {
  const list: Candidate[] = [
    ...findModelFolders(join(ROOT, args["models-dir"] ?? "models")).map((f) => ({
      name: `onnx:${f.name}`,
      spec: { kind: "onnx", options: { modelDir: f.dir } } as EmbedderSpec,
      shards: 1,
      quality: true,
    })),
    {
      name: "onnx:synthetic-minilm-6ffn",
      spec: {
        kind: "onnx",
        options: { modelDir: createTinyModelFolder({ parentDir: WORK, name: "synthetic-minilm-6ffn", ffnLayers: 6 }) },
      },
      shards: 1,
      quality: false,
    },
  ];
  const only = args.only?.split(",");
  return only ? list.filter((c) => only.some((o) => c.name.startsWith(o))) : list;
}

async function runChild(job: ChildJob): Promise<void> {
  const proc = Bun.spawn(["bun", CHILD, JSON.stringify(job)], { stdout: "inherit", stderr: "inherit" });
  if ((await proc.exited) !== 0) throw new Error(`child failed: ${job.mode} ${JSON.stringify(job.spec)}`);
}

const fileName = (name: string) => name.replace(/[^\w.-]+/g, "_");
const readVectors = async (path: string, dim: number) => {
  const all = new Float32Array(await Bun.file(path).arrayBuffer());
  return Array.from({ length: all.length / dim }, (_, i) => all.subarray(i * dim, (i + 1) * dim));
};

async function embedCorpus(c: Candidate, queryLimit: number | undefined, corpusSize: number) {
  const base = join(WORK, fileName(c.name));
  const outs = Array.from({ length: c.shards }, (_, s) => `${base}.${queryLimit ?? "all"}.shard${s}of${c.shards}`);
  const cached = args.reuse && (await Promise.all(outs.map((o) => Bun.file(`${o}.json`).exists()))).every(Boolean);
  if (!cached) {
    await Promise.all(
      outs.map((out, shard) =>
        runChild({ mode: "embed", spec: c.spec, shard, shards: c.shards, withQueries: shard === 0, queryLimit, out }),
      ),
    );
  }
  const metas = await Promise.all(outs.map(async (o) => (await Bun.file(`${o}.json`).json()) as EmbedResult));
  const dim = metas[0]?.dimension ?? 0;
  const shardVectors = await Promise.all(outs.map((o) => readVectors(`${o}.corpus.f32`, dim)));
  // Shard s holds corpus positions s, s+shards, ...: interleave back into corpus order.
  const corpus = Array.from(
    { length: corpusSize },
    (_, i) => shardVectors[i % c.shards]?.[Math.floor(i / c.shards)] ?? new Float32Array(dim),
  );
  const queries = await readVectors(`${outs[0]}.queries.f32`, dim);
  return { meta: metas[0] as EmbedResult, corpus, queries };
}

const fmt = (x: number, digits = 3) => x.toFixed(digits);

/** One line per embedder: does its best hybrid beat keyword-only? This is what `auto` is decided on. */
function verdicts(quality: { method: string; scores: RunScores }[]): string[] {
  const bm25 = quality[0]?.scores;
  if (!bm25) return [];
  const names = [...new Set(quality.slice(1).map((q) => q.method.split(": ")[0] ?? ""))];
  return names.map((name) => {
    const hybrids = quality.filter((q) => q.method.startsWith(`${name}: hybrid`));
    const top = hybrids.reduce<(typeof hybrids)[number] | undefined>(
      (a, b) => (!a || b.scores.ndcg10 > a.scores.ndcg10 ? b : a),
      undefined,
    );
    if (!top) return `- ${name}: no hybrid run.`;
    const delta = top.scores.ndcg10 - bm25.ndcg10;
    const verdict = delta > 0.005 ? "helps" : delta < -0.005 ? "hurts" : "makes no difference";
    const sign = delta >= 0 ? "+" : "";
    return `- ${name}: best hybrid (${top.method.split("hybrid ")[1]}) nDCG@10 ${fmt(top.scores.ndcg10)} vs BM25 ${fmt(bm25.ndcg10)} (${sign}${fmt(delta)}): ${verdict}.`;
  });
}
const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;

async function main(): Promise<void> {
  const queryLimit = args.limit ? Number(args.limit) : undefined;
  const loadAtStart = loadAverage();
  const ds = await loadScifact({ queryLimit });
  const qids = ds.queries.map((q) => q.id);
  const docIds = ds.corpus.map((p) => p.id);
  console.log(`SciFact: ${ds.corpus.length} passages, ${ds.queries.length} judged claims`);

  let t0 = performance.now();
  const bm25 = createFts5Bm25Index(ds.corpus.map((p) => ({ id: p.id, text: passageText(p) })));
  const bm25IndexMs = performance.now() - t0;
  t0 = performance.now();
  const bm25Run = new Map(ds.queries.map((q) => [q.id, bm25.search(q.text, 100)]));
  const bm25QueryMs = (performance.now() - t0) / ds.queries.length;
  const quality: { method: string; scores: RunScores }[] = [
    { method: "BM25 (FTS5, OR of non-stopword terms)", scores: scoreRun(bm25Run, ds.qrels, qids) },
  ];
  console.log(quality[0]);

  const costs: { name: string; t: ThroughputResult }[] = [];
  for (const c of candidates()) {
    console.log(`— ${c.name}`);
    if (c.quality) {
      const e = await embedCorpus(c, queryLimit, ds.corpus.length);
      const dim = e.meta.dimension;
      const index = createVectorIndex(docIds, e.corpus);
      const vecRun = new Map(ds.queries.map((q, i) => [q.id, index.search(e.queries[i] ?? new Float32Array(dim), 100)]));
      quality.push({ method: `${c.name}: vector only`, scores: scoreRun(vecRun, ds.qrels, qids) });
      for (const w of HYBRID_VECTOR_WEIGHTS) {
        const fused = new Map(
          qids.map((id) => [id, rrfFuse([{ ids: bm25Run.get(id) ?? [] }, { ids: vecRun.get(id) ?? [], weight: w }], { k: 60 })]),
        );
        quality.push({ method: `${c.name}: hybrid RRF k=60, BM25 1 : vector ${w}`, scores: scoreRun(fused, ds.qrels, qids) });
      }
      for (const q of quality.slice(-1 - HYBRID_VECTOR_WEIGHTS.length)) console.log(q.method, q.scores);
    }
    const out = join(WORK, `${fileName(c.name)}.throughput`);
    if (!(args.reuse && (await Bun.file(`${out}.json`).exists()))) {
      await runChild({ mode: "throughput", spec: c.spec, batchSizes: BATCH_SIZES, sample: THROUGHPUT_SAMPLE, out });
    }
    const t = (await Bun.file(`${out}.json`).json()) as ThroughputResult;
    costs.push({ name: c.name, t });
    console.log(t);
  }

  const best = quality.reduce((a, b) => (b.scores.ndcg10 > a.scores.ndcg10 ? b : a));
  const body = [
    `Command: \`bun bench/embedders.bench.ts${queryLimit ? ` --limit ${queryLimit}` : ""}\``,
    `Machine: ${describeMachine()}. 1-minute load average ${fmt(loadAtStart, 1)} when this report was assembled; each cost row has its own ("load avg": above ${cpus().length}, other jobs were competing and wall-clock figures are pessimistic, CPU ms/passage much less so).`,
    `Data: SciFact corpus, all ${ds.corpus.length} abstracts (title + text); ${ds.queries.length} judged train claims${queryLimit ? ` (the first ${queryLimit} in file order)` : " (all)"}; qrels/train.tsv. Passages are whole abstracts (no chunking).`,
    `BM25: in-memory FTS5 \`unicode61 remove_diacritics 2\`, ${fmt(bm25IndexMs, 0)} ms to index, ${fmt(bm25QueryMs, 1)} ms/query. Vector search: exact cosine over all passages. Hybrid: RRF (k=60) over the top 100 of each list.`,
    "",
    "### Retrieval quality",
    "",
    row(["method", "nDCG@10", "recall@10", "recall@100"]),
    row(["---", "---:", "---:", "---:"]),
    ...quality.map((q) => row([q.method, fmt(q.scores.ndcg10), fmt(q.scores.recall10), fmt(q.scores.recall100)])),
    "",
    `Best: ${best.method} (nDCG@10 ${fmt(best.scores.ndcg10)}).`,
    ...verdicts(quality),
    "",
    "### Cost",
    "",
    `Throughput over the first ${THROUGHPUT_SAMPLE} abstracts (≈ 250 words each) after one warm-up call, in-thread per batch size, then through the Bun Worker (default batch size). "CPU ms/passage" adds up all threads' CPU time (process.cpuUsage), so it holds even when other jobs compete for the cores; "stall" is the worst event-loop stall while embedding. Peak RSS is the measuring process's (in-thread and worker runs).`,
    "",
    row([
      "embedder",
      "dim",
      "load ms",
      ...BATCH_SIZES.map((b) => `batch ${b}: passages/s (CPU ms/passage, stall ms)`),
      "worker passages/s (stall ms)",
      "query ms (median)",
      "peak RSS MB",
      "load avg",
    ]),
    row(["---", "---:", "---:", ...BATCH_SIZES.map(() => "---:"), "---:", "---:", "---:", "---:"]),
    ...costs.map((c) =>
      row([
        c.name,
        c.t.dimension,
        fmt(c.t.loadMs, 0),
        ...c.t.batches.map((b) => `${fmt(b.perSec, 1)} (${fmt(b.cpuMsPerPassage, 1)}, ${fmt(b.worstStallMs, 0)})`),
        `${fmt(c.t.worker.perSec, 1)} (${fmt(c.t.worker.worstStallMs, 0)})`,
        fmt(c.t.queryMedianMs, 1),
        fmt(c.t.peakRssMb, 0),
        fmt(c.t.loadAverage, 1),
      ]),
    ),
    "",
    "Notes:",
    "- RRF with k=60 is flat at the top (1/61 vs 1/62), so even a vector list weighted 0.25 reorders BM25's top 10; a retriever much weaker than BM25 therefore costs nDCG in any weighting tried.",
    "- In-thread stalls are per loop of awaited calls: onnxruntime-node yields between calls (setImmediate) but blocks for each whole batch. The worker column is what the server sees.",
    "",
    "onnx:synthetic-minilm-6ffn is the test fixture graph with 6 residual feed-forward blocks (384→1536→384) over the real MiniLM tokenizer: random weights, so no quality row, but roughly MiniLM-L6's matrix work without attention. It stands in for the cost of a real ONNX model, which this machine cannot download.",
  ].join("\n");
  console.log(`\n${body}`);
  if (!args["no-write"]) await replaceSection(join(ROOT, "BENCHMARKS.md"), "Embedders and retrieval quality (SciFact)", body);
}

await main();
