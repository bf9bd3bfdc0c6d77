// Usage: bun bench/ingest.bench.ts [--embedder use-lite|word-vectors|none] [--write]
// Ingest throughput (pages/s, chunks/s) of the whole pipeline (sniff, isolated parse, chunk, embed, index)
// over a fixed set of real documents, next to the raw rate of the embedder alone on the same chunk texts,
// measured in the same run. --write replaces the "Ingest throughput" section of BENCHMARKS.md.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { configFor, createServices } from "../src/app.ts";
import { createEmbedder } from "../src/rag/embedders/create-embedder.ts";
import { replaceSection } from "./lib/benchmarks-md.ts";

const { values } = parseArgs({ options: { embedder: { type: "string", default: "use-lite" }, write: { type: "boolean", default: false } } });
const DOCS = join(import.meta.dir, "../../shared/data/docs");
const files = [
  "pdf/text/debian-bash-doc-bash.pdf",
  "pdf/text/federal-register-2020-17221.pdf",
  "pdf/text/pdflatex-4-pages.pdf",
  "pdf/text/google-doc-document.pdf",
  "pdf/text/multicolumn.pdf",
  "pdf/text/scotus-transcript-p1.pdf",
  "docx/python-docx/par-known-paragraphs.docx",
  "docx/mammoth/tables.docx",
  "docx/poi/bug65649.docx",
  "csv/clevercsv/imdb.csv",
  "csv/csvkit/FY09_EDU_Recipients_by_State.csv",
  "txt/gutenberg-11-alice.txt",
  "txt/gutenberg-1661-sherlock-holmes.txt",
].map((f) => join(DOCS, f));

const kind = values.embedder as "use-lite" | "word-vectors" | "none";
const dataDir = mkdtempSync(join(tmpdir(), "docchat-bench-ingest-"));
const services = await createServices(configFor(dataDir, { DOCCHAT_EMBEDDER: kind, DOCCHAT_TRAIN_WAIT_MS: "0" }));
await services.startWorkers();
const account = await services.accounts.create({ email: "bench@example.com", tokens: 0 });
const { deployment } = services.deployments.create({ accountId: account.id, name: "bench", published: true });

let peakRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 50);

const t0 = performance.now();
const ids: string[] = [];
for (const f of files) {
  const r = await services.documents.push({ deploymentId: deployment.id, name: basename(f), bytes: new Uint8Array(await Bun.file(f).arrayBuffer()), train: true, replace: true });
  ids.push(r.document.id);
}
await services.documents.waitFor(ids, 600_000);
const pipelineMs = performance.now() - t0;
const docs = services.documents.list(deployment.id);
const pages = docs.reduce((n, d) => n + (d.pages ?? 1), 0);
const chunks = docs.reduce((n, d) => n + d.chunkCount, 0);
const texts = services.db.query<{ text: string }, [string]>("SELECT text FROM chunks WHERE deployment_id = ?").all(deployment.id).map((r) => r.text);
await services.close();

// The embedder alone, fresh (no cache), on exactly the chunk texts the pipeline produced.
let embedMs = 0;
const embedder = await createEmbedder({ kind: kind === "none" ? "none" : kind, modelsDir: "./models" });
if (embedder) {
  const e0 = performance.now();
  for (let i = 0; i < texts.length; i += 32) await embedder.embedDocuments(texts.slice(i, i + 32));
  embedMs = performance.now() - e0;
  await embedder.close?.();
}
clearInterval(sampler);
rmSync(dataDir, { recursive: true, force: true });

const failed = docs.filter((d) => d.status !== "completed").map((d) => `${d.name}: ${d.errorCode}`);
const rate = (n: number, ms: number) => (ms > 0 ? (n / (ms / 1000)).toFixed(1) : "n/a");
const ratio = embedMs > 0 ? ((chunks / pipelineMs) / (texts.length / embedMs)) * 100 : Number.NaN;
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM`;
const lines = [
  `Command: \`bun bench/ingest.bench.ts --embedder ${kind}\` — ${new Date().toISOString().slice(0, 10)}, ${machine}, Bun ${Bun.version}.`,
  "",
  `Documents: ${files.length} real files from ../shared/data/docs (6 PDF, 3 DOCX, 2 CSV, 2 TXT), ${pages} pages, ${chunks} chunks${failed.length ? `; not completed: ${failed.join(", ")}` : ""}.`,
  "",
  "| measure | value |",
  "|---|---|",
  `| pipeline wall time (push → all Completed) | ${(pipelineMs / 1000).toFixed(2)} s |`,
  `| pipeline pages/s | ${rate(pages, pipelineMs)} |`,
  `| pipeline chunks/s | ${rate(chunks, pipelineMs)} |`,
  `| embedder alone (${kind}) chunks/s, same texts | ${rate(texts.length, embedMs)} |`,
  `| pipeline rate / embedder rate | ${Number.isNaN(ratio) ? "n/a (keyword-only)" : `${ratio.toFixed(0)} %`} |`,
  `| peak RSS (server process) | ${(peakRss / 2 ** 20).toFixed(0)} MiB |`,
];
console.log(lines.join("\n"));
if (values.write) await replaceSection(join(import.meta.dir, "../BENCHMARKS.md"), `Ingest throughput (${kind})`, lines.join("\n"));
process.exit(0);
