/**
 * Query latency that embeddings and reranking add to retrieval, measured in one run over one deployment:
 * keyword only, + query embedding (OpenAI-compatible client → fake model server on 127.0.0.1), + reranking of the
 * fused top 20 (rerank server, same fake). The fake answers at once, so these figures are docchat's own cost
 * (HTTP client, JSON, vector search, rerank plumbing); a real model's inference time comes on top of them.
 *
 *   bun bench/models.bench.ts [--queries N] [--no-write]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { configFor, createServices } from "../src/app.ts";
import { MIN_IDF_CORPUS } from "../src/chat/create-chat.ts";
import { createHttpReranker } from "../src/rag/rerank/http.reranker.ts";
import { createRetriever } from "../src/rag/retrieve.ts";
import { createSqliteTermStats } from "../src/store/sqlite/term-stats.sqlite.ts";
import { startFakeModelServer } from "../test/helpers/fake-model-server.ts";
import { sqliteDb } from "../test/helpers/test-sql.ts";
import { reportSection } from "./lib/benchmarks-md.ts";
import { describeMachine, loadAverage } from "./lib/machine-info.ts";
import { percentile } from "./lib/percentiles.ts";

const { values: args } = parseArgs({
  options: { queries: { type: "string", default: "300" }, "no-write": { type: "boolean", default: false } },
});
const DOCS = join(import.meta.dir, "../../shared/data/docs");
const files = ["txt/gutenberg-11-alice.txt", "txt/gutenberg-1661-sherlock-holmes.txt", "pdf/text/debian-bash-doc-bash.pdf"].map((f) =>
  join(DOCS, f),
);
const QUESTIONS = [
  "What did the Cat say to Alice?",
  "Why was the Queen of Hearts angry?",
  "Who stole the tarts?",
  "What was written on the bottle?",
  "How did Holmes know the man had been in Afghanistan?",
  "What was in the blue carbuncle?",
  "Who is Irene Adler?",
  "What is the red-headed league?",
  "How do I redirect standard error to a file?",
  "What does the set -e option do?",
];

const fake = startFakeModelServer({ dimension: 768 });
const dataDir = mkdtempSync(join(tmpdir(), "docchat-bench-models-"));
const services = await createServices(
  configFor(dataDir, {
    DOCCHAT_EMBEDDINGS_URL: fake.url,
    DOCCHAT_EMBEDDINGS_MODEL: "nomic-embed-text",
    DOCCHAT_TRAIN_WAIT_MS: "0",
    DOCCHAT_MODELS: join(dataDir, "none"),
    DOCCHAT_RERANKER: "none",
  }),
);
await services.startWorkers();
const account = await services.accounts.create({ email: "bench@example.com", tokens: 0 });
const { deployment } = await services.deployments.create({ accountId: account.id, name: "bench", published: true });
const ids: string[] = [];
for (const f of files)
  ids.push(
    (
      await services.documents.push({
        deploymentId: deployment.id,
        name: basename(f),
        bytes: new Uint8Array(await Bun.file(f).arrayBuffer()),
        train: true,
        replace: true,
      })
    ).document.id,
  );
await services.documents.waitFor(ids, 600_000);
const chunks = sqliteDb(services).query<{ n: number }, []>("SELECT COUNT(*) AS n FROM chunks").get()?.n ?? 0;

const embedder = await services.embedder();
const reranker = createHttpReranker({ url: fake.url, model: "bge-reranker-v2-m3", concurrency: 2, timeoutMs: 10_000, retries: 0 });
const settings = {
  keywordWeight: 1,
  vectorWeight: 0.25,
  candidates: 50,
  rrfK: 60,
  minIdfCorpus: MIN_IDF_CORPUS,
  calibration: () => null,
  rerankCandidates: 20,
};
const base = { index: services.repos.chunkIndex, stats: createSqliteTermStats(sqliteDb(services)), settings };
const variants = [
  { name: "keyword only", retriever: createRetriever({ ...base, embedder: async () => null }) },
  { name: "+ query embedding (hybrid)", retriever: createRetriever({ ...base, embedder: async () => embedder }) },
  {
    name: "+ query embedding + rerank top 20",
    retriever: createRetriever({ ...base, embedder: async () => embedder, reranker: async () => reranker }),
  },
];

const n = Number(args.queries);
const results: { name: string; p50: number; p95: number; mean: number }[] = [];
for (const v of variants) {
  for (const q of QUESTIONS) await v.retriever.retrieve({ deploymentId: deployment.id, query: q, topK: 5 }); // warm-up
}
// Interleaved rounds, so a burst of load from other jobs on the machine hits every variant alike.
const samples = variants.map(() => [] as number[]);
for (let i = 0; i < n; i++) {
  const q = QUESTIONS[i % QUESTIONS.length] as string;
  for (const [k, v] of variants.entries()) {
    const t0 = performance.now();
    await v.retriever.retrieve({ deploymentId: deployment.id, query: q, topK: 5 });
    samples[k]?.push(performance.now() - t0);
  }
}
for (const [k, v] of variants.entries()) {
  const s = samples[k] ?? [];
  results.push({ name: v.name, p50: percentile(s, 50), p95: percentile(s, 95), mean: s.reduce((a, b) => a + b, 0) / s.length });
}
await services.close();
await fake.close();
rmSync(dataDir, { recursive: true, force: true });

const keyword = results[0] as (typeof results)[number];
const f = (x: number) => x.toFixed(2);
const body = [
  `Command: \`bun bench/models.bench.ts --queries ${n}\``,
  `Machine: ${describeMachine()}; 1-minute load average ${loadAverage().toFixed(1)}.`,
  "",
  `One deployment of ${files.length} real documents (${chunks} chunks, 768-dimension vectors), ${n} rounds of ${variants.length} variants interleaved over ${QUESTIONS.length} questions; \`retrieve()\` wall time per question. The fake model server answers at once: the added time is docchat's own (HTTP round trip, JSON of a 768-float vector or 20 passages, sqlite-vec KNN, reordering), not a model's. The fake runs in the same process and computes its 20 rerank scores there (hashing 768-dimension vectors), so part of the rerank row is the fake's own work.`,
  "",
  "| retrieval | p50 ms | p95 ms | mean ms | added to keyword-only (p50) |",
  "| --- | ---: | ---: | ---: | ---: |",
  ...results.map((r) => `| ${r.name} | ${f(r.p50)} | ${f(r.p95)} | ${f(r.mean)} | ${r === keyword ? "—" : `+${f(r.p50 - keyword.p50)}`} |`),
  "",
  "A real model adds its inference on top: on CPU, embedding one short question with a base-size model is typically tens of milliseconds and cross-encoding 20 passages with a base-size reranker a few hundred; on a GPU both are a few milliseconds. Not measured here (no model can be downloaded on this machine).",
].join("\n");
await reportSection("Query latency added by embeddings and reranking", body, !args["no-write"]);
process.exit(0);
