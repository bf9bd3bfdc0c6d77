// Usage: bun bench/ingest-scale.bench.ts [--docs N] [--only scifact] [--write]
// Ingest at scale, each figure with the peak RSS of the server process and of its parser processes:
//  1. SciFact (../shared/data/dev/scifact/corpus.jsonl), one TXT per abstract, added as a bulk load (parse pool, which
//     also detects each document's language and analyzes its chunks, + batched training, keyword-only index) →
//     documents/s, next to the raw rate of inserting the very same chunks into a fresh index in the same run (rows
//     marked completed as the training store marks a small batch's), and that rate with the analysis added.
//  2. The real PDFs of ../shared/data/docs (text and tables) and the 13-file mix of bench/ingest.bench.ts → pages/s.
// OCR has its own benchmark (bench/ocr.bench.ts). --only scifact skips part 2.
// --write replaces the "Ingest at scale" section of BENCHMARKS.md.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { configFor, createServices, type Services } from "../src/app.ts";
import { readCpuMsNow, readResidentBytesNow } from "../src/ingest/worker-watchdog.ts";
import { createChunkIndexWriter } from "../src/store/sqlite/chunk-index.sqlite.ts";
import { markCompleted } from "../src/store/sqlite/repos/documents.sqlite.ts";
import { sqliteDb } from "../test/helpers/test-sql.ts";
import { replaceSection } from "./lib/benchmarks-md.ts";
import { INGEST_MIX } from "./lib/ingest-mix.ts";
import { analyze, chunkTerms, documentLanguage } from "../src/rag/terms.ts";

const { values } = parseArgs({
  options: { docs: { type: "string" }, only: { type: "string" }, write: { type: "boolean", default: false } },
});
const SHARED = join(import.meta.dir, "../../shared/data");
const startLoad = loadavg()[0] ?? 0;
const work = mkdtempSync(join(tmpdir(), "docchat-bench-scale-"));
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const rate = (n: number, ms: number) => (n / (ms / 1000)).toFixed(1);

/** Peak resident memory of this process and, separately, of the parse pool's processes together. */
function sampler(services: Services | null) {
  let main = 0;
  let workers = 0;
  const timer = setInterval(() => {
    main = Math.max(main, process.memoryUsage().rss);
    const w = (services?.parsePool.pids() ?? []).reduce((n, pid) => n + (readResidentBytesNow(pid) ?? 0), 0);
    workers = Math.max(workers, w);
  }, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return { main, workers };
    },
  };
}

async function freshServices(name: string, env: Record<string, string> = {}) {
  const services = await createServices(configFor(join(work, name), { DOCCHAT_EMBEDDER: "none", DOCCHAT_TRAIN_WAIT_MS: "0", ...env }));
  const account = await services.accounts.create({ email: `${name}@example.com`, tokens: 0 });
  const { deployment } = await services.deployments.create({ accountId: account.id, name, published: true });
  return { services, deploymentId: deployment.id };
}

/** The CLI's bulk path: prepare in the pool, rows in groups, then train until idle. */
async function bulkLoad(services: Services, deploymentId: string, files: string[]) {
  let failed = 0;
  await services.documents.pushMany(
    files.map((f) => ({ deploymentId, name: basename(f), file: f, train: true, replace: true })),
    { concurrency: services.parsePool.size * 2, trainHere: true, onResult: (_i, r) => void (r.ok ? 0 : failed++) },
  );
  return failed;
}

// 1. SciFact
const corpus = (await Bun.file(join(SHARED, "dev/scifact/corpus.jsonl")).text()).trim().split("\n");
const limit = values.docs ? Number(values.docs) : corpus.length;
const scifactDir = join(work, "scifact");
mkdirSync(scifactDir);
const scifactFiles = corpus.slice(0, limit).map((line) => {
  const d = JSON.parse(line) as { _id: string; title: string; text: string };
  const path = join(scifactDir, `${d._id}.txt`);
  writeFileSync(path, `${d.title}\n\n${d.text}`);
  return path;
});
const a = await freshServices("scifact");
let s = sampler(a.services);
let cpu0 = process.cpuUsage();
let t0 = performance.now();
const scifactFailed = await bulkLoad(a.services, a.deploymentId, scifactFiles);
const scifactMs = performance.now() - t0;
const scifactRss = s.stop();
// CPU time, which the machine's other load moves less than the clock: this process, and the parser processes (those
// still running: a recycled worker's time is lost, said in the row)
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const scifactCpu = {
  main: cpuMs(process.cpuUsage(cpu0)),
  workers: a.services.parsePool.pids().reduce((n, pid) => n + (readCpuMsNow(pid) ?? 0), 0),
  recycled: a.services.parsePool.started() > a.services.parsePool.size,
};
const chunks = sqliteDb(a.services)
  .query<Record<string, unknown>, [string]>("SELECT * FROM chunks WHERE deployment_id = ? ORDER BY id")
  .all(a.deploymentId);
const docsOf = new Map<string, Record<string, unknown>[]>();
for (const c of chunks) docsOf.set(c.document_id as string, [...(docsOf.get(c.document_id as string) ?? []), c]);
await a.services.close();

// ... and the raw rate: the same chunks straight into a fresh index, one transaction per 500 chunks
const raw = await freshServices("raw");
// the terms the pipeline stored, analyzed before the clock starts: this row measures the store's insert alone
const analyzeCpu0 = process.cpuUsage();
const analyzeT0 = performance.now();
const termsOf = new Map(
  chunks.map((c) => [
    c.id as number,
    { terms: analyze(c.text as string, "en").join(" "), headingTerms: analyze(c.heading_path as string, "en").join(" ") },
  ]),
);
const analyzeMs = performance.now() - analyzeT0;
const analyzeCpu = cpuMs(process.cpuUsage(analyzeCpu0));
// ... and as training must analyze them, no language pinned: each document's language detected, then its chunks' terms
const trainCpu0 = process.cpuUsage();
const trainT0 = performance.now();
for (const rows of docsOf.values()) {
  const drafts = rows.map((c) => ({ text: c.text as string, headingPath: c.heading_path as string }));
  chunkTerms(drafts, documentLanguage(drafts.map((d) => d.text).join("\n")));
}
const trainAnalyzeMs = performance.now() - trainT0;
const trainAnalyzeCpu = cpuMs(process.cpuUsage(trainCpu0));
cpu0 = process.cpuUsage();
t0 = performance.now();
const entries = [...docsOf.entries()];
const writer = createChunkIndexWriter(sqliteDb(raw.services));
for (let i = 0; i < entries.length; ) {
  const batch: [string, Record<string, unknown>[]][] = [];
  for (let n = 0; n < 500 && i < entries.length; i++) {
    const entry = entries[i] as [string, Record<string, unknown>[]];
    batch.push(entry);
    n += entry[1].length;
  }
  await raw.services.repos.documents.insertMany(
    batch.map(([id]) => ({
      id,
      deploymentId: raw.deploymentId,
      name: `${id}.txt`,
      kind: "txt",
      contentHash: id,
      size: 0,
      pages: null,
      queue: false,
      replaceOnTrain: false,
    })),
  );
  sqliteDb(raw.services)
    .transaction(() => {
      for (const [id, rows] of batch) {
        writer.insert(
          raw.deploymentId,
          id,
          rows.map((c) => ({
            ord: c.ord as number,
            source: c.source as string,
            text: c.text as string,
            headingPath: c.heading_path as string,
            tokenCount: c.token_count as number,
            textHash: c.text_hash as string,
            lang: c.lang as string | null,
            ...(termsOf.get(c.id as number) as { terms: string; headingTerms: string }),
          })),
        );
        markCompleted(
          sqliteDb(raw.services),
          id,
          rows.length,
          rows.map((c) => c.lang as string | null),
        );
      }
    })
    .immediate();
}
const rawMs = performance.now() - t0;
const rawCpu = cpuMs(process.cpuUsage(cpu0));
await raw.services.close();

// 2. Real PDFs, and the mix of bench/ingest.bench.ts
const pdfs = ["pdf/text", "pdf/tables"].flatMap((d) =>
  readdirSync(join(SHARED, "docs", d))
    .filter((f) => f.endsWith(".pdf"))
    .map((f) => join(SHARED, "docs", d, f)),
);
const mix = INGEST_MIX;
const pageRuns: { label: string; files: number; pages: number; ms: number; failed: number; rss: { main: number; workers: number } }[] = [];
for (const [label, files] of values.only === "scifact"
  ? []
  : ([
      ["real PDFs of docs/pdf/text and docs/pdf/tables", pdfs],
      ["the 13-file mix of bench/ingest.bench.ts (non-PDF counts 1 page)", mix],
    ] as const)) {
  const b = await freshServices(`pages-${pageRuns.length}`);
  s = sampler(b.services);
  t0 = performance.now();
  const failed = await bulkLoad(b.services, b.deploymentId, [...files]);
  const ms = performance.now() - t0;
  const pages = (await b.services.documents.list(b.deploymentId)).reduce((n, d) => n + (d.pages ?? 1), 0);
  pageRuns.push({ label, files: files.length, pages, ms, failed, rss: s.stop() });
  await b.services.close();
}

rmSync(work, { recursive: true, force: true });

const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM`;
const pipelineRate = Number(rate(scifactFiles.length, scifactMs));
const perDoc = (ms: number) => (ms / scifactFiles.length).toFixed(2);
const rawRate = Number(rate(entries.length, rawMs));
const lines = [
  `Command: \`bun bench/ingest-scale.bench.ts${values.docs ? ` --docs ${values.docs}` : ""}${values.only ? ` --only ${values.only}` : ""}\` — ${new Date().toISOString().slice(0, 10)}, ${machine}, Bun ${Bun.version}; keyword-only index (DOCCHAT_EMBEDDER=none), parse pool of ${cpus().length > 0 ? Math.min(4, cpus().length) : 1} processes. The machine is shared (load average ${startLoad.toFixed(1)} at the start): absolute figures move with its load, the ratios within one run hold.`,
  "",
  "| measure | value |",
  "|---|---|",
  `| SciFact bulk load: ${scifactFiles.length} TXT files (one per abstract), ${chunks.length} chunks${scifactFailed ? `, ${scifactFailed} failed` : ""} | ${(scifactMs / 1000).toFixed(1)} s → **${pipelineRate} documents/s** |`,
  `| raw insert of the same chunks into a fresh index (500 chunks a transaction) | ${rawRate} documents/s |`,
  `| pipeline rate / raw rate | ${((pipelineRate / rawRate) * 100).toFixed(0)} % |`,
  `| analysis of the same chunks alone (English terms, no language detection, one thread; not in the raw rate) | ${(analyzeMs / 1000).toFixed(1)} s → ${rate(entries.length, analyzeMs)} documents/s; raw insert with it: ${rate(entries.length, rawMs + analyzeMs)} documents/s, pipeline / that ${((pipelineRate / Number(rate(entries.length, rawMs + analyzeMs))) * 100).toFixed(0)} % |`,
  `| analysis as training does it (each document's language detected, then its chunks' terms; one thread; not in the raw rate) | ${(trainAnalyzeMs / 1000).toFixed(1)} s → ${rate(entries.length, trainAnalyzeMs)} documents/s; raw insert with it: ${rate(entries.length, rawMs + trainAnalyzeMs)} documents/s, pipeline / that **${((pipelineRate / Number(rate(entries.length, rawMs + trainAnalyzeMs))) * 100).toFixed(0)} %** |`,
  `| CPU time per document: bulk load, server process + parser processes${scifactCpu.recycled ? " (a recycled worker's not counted)" : ""} / raw insert / English terms / detection + terms | ${perDoc(scifactCpu.main)} + ${perDoc(scifactCpu.workers)} ms / ${perDoc(rawCpu)} ms / ${perDoc(analyzeCpu)} ms / ${perDoc(trainAnalyzeCpu)} ms |`,
  `| peak RSS, SciFact: server process / parser processes together | ${mib(scifactRss.main)} / ${mib(scifactRss.workers)} |`,
  ...pageRuns.flatMap((r) => [
    `| ${r.label}: ${r.files} files, ${r.pages} pages${r.failed ? `, ${r.failed} failed` : ""} | ${(r.ms / 1000).toFixed(1)} s → **${rate(r.pages, r.ms)} pages/s** |`,
    `| peak RSS, same run: server process / parser processes together | ${mib(r.rss.main)} / ${mib(r.rss.workers)} |`,
  ]),
];
console.log(lines.join("\n"));
if (values.write) await replaceSection(join(import.meta.dir, "../BENCHMARKS.md"), "Ingest at scale", lines.join("\n"));
process.exit(0);
