/**
 * Child process of bench/languages.bench.ts: keyword retrieval latency of the source tree given (so two trees
 * compare in one run) — N synthetic chunks (~90 words, SciFact sentences recombined) in one deployment of a fresh
 * store (a SQLite data dir, or the PostgreSQL database DOCCHAT_DATABASE_URL names), then SciFact claims through the
 * product's retrieve() in keyword mode after 10 warm-up claims. Prints {p50, p95, mean, loadSeconds}.
 *
 *   bun bench/lib/keyword-latency.ts ROOT CHUNKS QUERIES
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [root = join(import.meta.dir, "../.."), chunksArg = "100000", queriesArg = "200"] = process.argv.slice(2);
const app = (await import(join(root, "src/app.ts"))) as typeof import("../../src/app.ts");
// a tree with the analyzer gives its chunks their terms, as training does; an older one indexes the text itself
const terms = (await import(join(root, "src/rag/terms.ts"))) as Partial<typeof import("../../src/rag/terms.ts")>;
const corpus = (await Bun.file(join(import.meta.dir, "../../../shared/data/dev/scifact/corpus.jsonl")).text())
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { title: string; text: string });
const claims = (await Bun.file(join(import.meta.dir, "../../../shared/data/dev/scifact/queries.jsonl")).text())
  .split("\n")
  .filter(Boolean)
  .map((l) => (JSON.parse(l) as { text: string }).text);
const sentences = corpus.flatMap((p) => p.text.split(/(?<=\.)\s+/)).filter((s) => s.length > 40);
const text = (i: number) => Array.from({ length: 4 }, (_, j) => sentences[(i * 7 + j * 131) % sentences.length]).join(" ");

const dir = mkdtempSync(join(tmpdir(), "docchat-kw-latency-"));
const s = await app.createServices(app.configFor(dir, { DOCCHAT_EMBEDDER: "none" }));
try {
  const account = await s.accounts.create({ email: "lat@example.com", tokens: 10 });
  const { deployment } = await s.deployments.create({ accountId: account.id, name: "Latency", published: true });
  const n = Number(chunksArg);
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1000) {
    const id = `doc_${i}`;
    await s.repos.documents.insert({
      id,
      deploymentId: deployment.id,
      name: `${id}.txt`,
      kind: "txt",
      contentHash: id,
      bytes: new TextEncoder().encode(id),
      pages: null,
      queue: false,
      replaceOnTrain: false,
    } as Parameters<typeof s.repos.documents.insert>[0]);
    const drafts = Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({
      ord: j,
      source: id,
      text: text(i + j),
      headingPath: "",
      tokenCount: 90,
      textHash: `${i + j}`,
    }));
    const analyzed = terms.chunkTerms ? terms.chunkTerms(drafts, "en", ["en"]) : [];
    await s.repos.chunkIndex.insert(
      deployment.id,
      id,
      drafts.map((d, k) => ({ ...d, ...(analyzed[k] ?? {}) })) as Parameters<typeof s.repos.chunkIndex.insert>[2],
    );
  }
  const loadSeconds = (performance.now() - t0) / 1000;
  const ask = (q: string) => s.retriever.retrieve({ deploymentId: deployment.id, query: q, topK: 5, mode: "keyword" });
  for (const q of claims.slice(0, 10)) await ask(q);
  const times: number[] = [];
  for (const q of claims.slice(10, 10 + Number(queriesArg))) {
    const t = performance.now();
    await ask(q);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] as number;
  console.log(JSON.stringify({ p50: at(0.5), p95: at(0.95), mean: times.reduce((a, b) => a + b, 0) / times.length, loadSeconds }));
} finally {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
}
