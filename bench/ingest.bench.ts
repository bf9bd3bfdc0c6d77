// Usage: bun bench/ingest.bench.ts [--embedder remote|none] [--write]
// Ingest throughput (pages/s, chunks/s) of the whole pipeline (sniff, isolated parse, chunk, embed, index)
// over a fixed set of real documents, next to the raw rate of the embedder alone on the same chunk texts,
// measured in the same run. `remote` is the OpenAI-compatible embedder against the fake model server
// (test/helpers/fake-model-server.ts) on 127.0.0.1, made to cost what a CPU embedding server costs: one model
// slot, --request-ms per request + --text-ms per text (default 20 + 40: a base-size model on a few CPU cores).
// Its own rate is measured by a client that keeps it saturated.
// --write replaces the "Ingest throughput (...)" section of BENCHMARKS.md.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { configFor, createServices } from "../src/app.ts";
import { startFakeModelServer } from "../test/helpers/fake-model-server.ts";
import { sqliteDb } from "../test/helpers/test-sql.ts";
import { replaceSection } from "./lib/benchmarks-md.ts";
import { INGEST_MIX } from "./lib/ingest-mix.ts";

const { values } = parseArgs({
  options: {
    embedder: { type: "string", default: "remote" },
    "text-ms": { type: "string", default: "40" },
    "request-ms": { type: "string", default: "20" },
    write: { type: "boolean", default: false },
  },
});
const files = INGEST_MIX;

const kind = values.embedder as "remote" | "none";
const COST = { perRequestMs: Number(values["request-ms"]), perTextMs: Number(values["text-ms"]) };
const BATCH = 32;
const CONCURRENCY = 2;
const fake = kind === "remote" ? startFakeModelServer({ dimension: 768, cost: COST }) : null;
const env: Record<string, string> = fake
  ? {
      DOCCHAT_EMBEDDINGS_URL: fake.url,
      DOCCHAT_EMBEDDINGS_MODEL: "nomic-embed-text",
      DOCCHAT_EMBEDDINGS_BATCH_SIZE: String(BATCH),
      DOCCHAT_EMBEDDINGS_CONCURRENCY: String(CONCURRENCY),
    }
  : { DOCCHAT_EMBEDDER: "none" };
const dataDir = mkdtempSync(join(tmpdir(), "docchat-bench-ingest-"));
const services = await createServices(
  configFor(dataDir, { ...env, DOCCHAT_TRAIN_WAIT_MS: "0", DOCCHAT_MODELS: join(dataDir, "no-models") }),
);
await services.startWorkers();
const account = await services.accounts.create({ email: "bench@example.com", tokens: 0 });
const { deployment } = await services.deployments.create({ accountId: account.id, name: "bench", published: true });

let peakRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 50);

const before = fake?.stats();
const t0 = performance.now();
const ids: string[] = [];
for (const f of files) {
  const r = await services.documents.push({
    deploymentId: deployment.id,
    name: basename(f),
    bytes: new Uint8Array(await Bun.file(f).arrayBuffer()),
    train: true,
    replace: true,
  });
  ids.push(r.document.id);
}
await services.documents.waitFor(ids, 600_000);
const pipelineMs = performance.now() - t0;
const docs = await services.documents.list(deployment.id);
const pages = docs.reduce((n, d) => n + (d.pages ?? 1), 0);
const chunks = docs.reduce((n, d) => n + d.chunkCount, 0);
const texts = sqliteDb(services)
  .query<{ text: string }, [string]>("SELECT DISTINCT text FROM chunks WHERE deployment_id = ?")
  .all(deployment.id)
  .map((r) => r.text);
const embeddedByPipeline = fake ? fake.stats().texts - (before?.texts ?? 0) : 0;
await services.close();

// The server alone: the same texts, same batch size, CONCURRENCY requests kept in flight (no parsing, no index).
let serverMs = 0;
if (fake) {
  const batches: string[][] = [];
  for (let i = 0; i < texts.length; i += BATCH) batches.push(texts.slice(i, i + BATCH).map((t) => `search_document: ${t}`));
  const s0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < batches.length) {
        const input = batches[next++];
        const res = await fetch(`${fake.url}/embeddings`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "nomic-embed-text", input }),
        });
        await res.json();
      }
    }),
  );
  serverMs = performance.now() - s0;
  await fake.close();
}
clearInterval(sampler);
rmSync(dataDir, { recursive: true, force: true });

const failed = docs.filter((d) => d.status !== "completed").map((d) => `${d.name}: ${d.errorCode}`);
const rate = (n: number, ms: number) => (ms > 0 ? (n / (ms / 1000)).toFixed(1) : "n/a");
// Rates over the distinct texts the server had to embed (identical chunks are embedded once).
const ratio = serverMs > 0 ? (embeddedByPipeline / pipelineMs / (texts.length / serverMs)) * 100 : Number.NaN;
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM`;
const lines = [
  `Command: \`bun bench/ingest.bench.ts --embedder ${kind}${fake ? ` --text-ms ${COST.perTextMs} --request-ms ${COST.perRequestMs}` : ""}\` — ${new Date().toISOString().slice(0, 10)}, ${machine}, Bun ${Bun.version}.`,
  "",
  `Documents: ${files.length} real files from ../shared/data/docs (6 PDF, 3 DOCX, 2 CSV, 2 TXT), ${pages} pages, ${chunks} chunks (${texts.length} distinct texts)${failed.length ? `; not completed: ${failed.join(", ")}` : ""}.`,
  ...(fake
    ? [
        "",
        `Embedder: OpenAI-compatible client (batch ${BATCH}, ${CONCURRENCY} in flight) against the fake model server on 127.0.0.1, simulated model cost ${COST.perRequestMs} ms/request + ${COST.perTextMs} ms/text on one slot (≈ ${(1000 / (COST.perTextMs + COST.perRequestMs / BATCH)).toFixed(0)} texts/s at best).`,
      ]
    : []),
  "",
  "| measure | value |",
  "|---|---|",
  `| pipeline wall time (push → all Completed) | ${(pipelineMs / 1000).toFixed(2)} s |`,
  `| pipeline pages/s | ${rate(pages, pipelineMs)} |`,
  `| pipeline chunks/s | ${rate(chunks, pipelineMs)} |`,
  ...(fake
    ? [
        `| texts the pipeline sent to the server | ${embeddedByPipeline} |`,
        `| pipeline embedded texts/s | ${rate(embeddedByPipeline, pipelineMs)} |`,
      ]
    : []),
  `| embedding server alone, texts/s, same texts | ${fake ? rate(texts.length, serverMs) : "n/a"} |`,
  `| pipeline rate / server rate | ${Number.isNaN(ratio) ? "n/a (keyword-only)" : `${ratio.toFixed(0)} %`} |`,
  `| peak RSS (server process) | ${(peakRss / 2 ** 20).toFixed(0)} MiB |`,
];
console.log(lines.join("\n"));
const title = fake ? `Ingest throughput (remote embedder, ${COST.perTextMs} ms/text server)` : `Ingest throughput (${kind})`;
if (values.write) await replaceSection(join(import.meta.dir, "../BENCHMARKS.md"), title, lines.join("\n"));
process.exit(0);
