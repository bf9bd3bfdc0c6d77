/**
 * The language-aware keyword index (issue 19), measured in ONE run on both engines:
 *   1. scifact: SciFact (5183 abstracts, 809 judged claims) through the product's retrieve(), keyword only, on SQLite
 *      and PostgreSQL — next to plain BM25 over the same abstracts in FTS5 without stemming (unicode61, what the
 *      product indexed before) and with Porter stemming (FTS5's porter tokenizer), the same claims' content words.
 *   2. multilingual: the fixture set test/fixtures/multilingual (de, fr, es, ru, ja, zh: 10 documents, 22 questions in
 *      other word forms each): the answering document's rank through retrieve() on both engines, and with plain
 *      unstemmed FTS5 (what the product did before) — top-1, top-5, MRR per language.
 *   3. reindex: re-analyzing N chunks (an upgrade; default 100,000 synthetic chunks of SciFact sentences) on each engine.
 *   4. ingest: SciFact abstracts as TXT files through documents.push + training, documents/s, this tree and another
 *      source tree (--before /path/to/checkout, e.g. main) in child processes of the same run.
 *
 *   5. latency: keyword retrieval p50/p95 at N chunks on each engine, this tree and --before, in child processes.
 *
 *   bun bench/languages.bench.ts [--only scifact,multilingual,latency,reindex,ingest] [--chunks 100000] [--docs 3000] [--rounds 2] [--before DIR] [--no-write]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { reindexKeywords } from "../src/documents/keyword-reindex.ts";
import { createRetriever } from "../src/rag/retrieve.ts";
import { documentLanguage, wordTokens } from "../src/rag/terms.ts";
import type { ChunkIndexStore, NewChunk } from "../src/store/contract/index.ts";
import { withTerms } from "../test/helpers/analyzed.ts";
import { ENGINES, type IndexDriver, openDriver } from "../test/helpers/index-drivers.ts";
import { replaceSection, replaceSubsections } from "./lib/benchmarks-md.ts";
import { baselineWords, fts5Baseline } from "./lib/fts5-baseline.ts";
import { describeMachine, loadAverage } from "./lib/machine-info.ts";
import { scoreRun } from "./lib/retrieval.metrics.ts";
import { loadScifact, passageText } from "./lib/scifact.dataset.ts";

const { values: args } = parseArgs({
  options: {
    only: { type: "string", default: "scifact,multilingual,latency,reindex,ingest" },
    chunks: { type: "string", default: "100000" },
    docs: { type: "string", default: "3000" },
    rounds: { type: "string", default: "2" },
    before: { type: "string" },
    "no-write": { type: "boolean", default: false },
  },
});
const only = new Set(args.only?.split(","));
const f = (x: number, d = 3) => x.toFixed(d);
const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
const sections: string[] = [];
const rounds = Number(args.rounds);
const median = (xs: number[]) => {
  const t = [...xs].sort((a, b) => a - b);
  return t.length % 2 ? (t[(t.length - 1) / 2] as number) : ((t[t.length / 2 - 1] as number) + (t[t.length / 2] as number)) / 2;
};
const retrieverFor = (d: IndexDriver) =>
  createRetriever({
    index: d.index,
    stats: d.stats,
    embedder: async () => null,
    settings: { keywordWeight: 1, vectorWeight: 0, candidates: 50, rrfK: 60, minIdfCorpus: 250, calibration: () => null },
  });

if (only.has("scifact")) {
  const ds = await loadScifact();
  const lines: string[] = [];
  const qids = ds.queries.map((q) => q.id);
  const baseDocs = ds.corpus.map((p) => ({ id: p.id, text: passageText(p) }));
  const words = baselineWords;
  for (const [label, tokenize] of [
    ["plain BM25, no stemming (FTS5 unicode61: the index before this change)", "unicode61 remove_diacritics 2"],
    ["plain BM25 with Porter stemming (FTS5 porter unicode61)", "porter unicode61 remove_diacritics 2"],
  ] as const) {
    const b = fts5Baseline(baseDocs, tokenize);
    const run = new Map(ds.queries.map((q) => [q.id, b.search(words(q.text), 10)]));
    const s = scoreRun(run, ds.qrels, qids);
    lines.push(row([label, "SQLite FTS5", f(s.ndcg10), f(s.recall10)]));
    b.close();
  }
  for (const engine of ENGINES) {
    const d = await openDriver(engine);
    const dep = await d.deployment();
    for (let i = 0; i < ds.corpus.length; i += 500)
      await d.addDocument(
        dep,
        ds.corpus
          .slice(i, i + 500)
          .map((p) => withTerms({ ord: 0, source: p.id, text: passageText(p), headingPath: "", tokenCount: 1, textHash: p.id })),
      );
    if (engine === "postgres") await (d as unknown as { sql: Bun.SQL }).sql`VACUUM ANALYZE`;
    const r = retrieverFor(d);
    const run = new Map<string, string[]>();
    const t = performance.now();
    for (const q of ds.queries)
      run.set(
        q.id,
        (await r.retrieve({ deploymentId: dep, query: q.text, topK: 10, mode: "keyword" })).hits.map((h) => h.source),
      );
    const ms = (performance.now() - t) / ds.queries.length;
    const s = scoreRun(run, ds.qrels, qids);
    lines.push(
      row([
        `the product: analyzed terms (Snowball English, stop words), keyword only, ${f(ms, 2)} ms/claim`,
        engine,
        f(s.ndcg10),
        f(s.recall10),
      ]),
    );
    await d.close();
  }
  sections.push(`### SciFact: keyword retrieval

${ds.corpus.length} abstracts (one chunk each), ${ds.queries.length} judged claims, top 10. Baselines: FTS5 \`bm25()\` over the same abstracts queried with an OR of the claim's content words (the same stop words).

| method | engine | nDCG@10 | recall@10 |
| --- | --- | ---: | ---: |
${lines.join("\n")}`);
  console.log(sections.at(-1));
}

if (only.has("multilingual")) {
  const langs = ["de", "fr", "es", "ru", "ja", "zh"];
  const lines: string[] = [];
  for (const engine of ENGINES) {
    const d = await openDriver(engine);
    const r = retrieverFor(d);
    for (const lang of langs) {
      const fx = (await Bun.file(join(import.meta.dir, `../test/fixtures/multilingual/${lang}.json`)).json()) as {
        docs: { name: string; text: string }[];
        questions: { q: string; doc: string }[];
      };
      const dep = await d.deployment();
      for (const doc of fx.docs)
        await d.addDocument(dep, [
          withTerms(
            { ord: 0, source: doc.name, text: doc.text, headingPath: "", tokenCount: 1, textHash: doc.name },
            documentLanguage(doc.text),
          ),
        ] as NewChunk[]);
      const base =
        engine === "sqlite"
          ? fts5Baseline(
              fx.docs.map((x) => ({ id: x.name, text: x.text })),
              "unicode61 remove_diacritics 2",
            )
          : null;
      const score = (ranks: number[]) => ({
        top1: ranks.filter((x) => x === 1).length / ranks.length,
        top5: ranks.filter((x) => x > 0 && x <= 5).length / ranks.length,
        mrr: ranks.reduce((s, x) => s + (x > 0 ? 1 / x : 0), 0) / ranks.length,
      });
      const product: number[] = [];
      const plain: number[] = [];
      for (const q of fx.questions) {
        const hits = (await r.retrieve({ deploymentId: dep, query: q.q, topK: 10, mode: "keyword" })).hits.map((h) => h.source);
        product.push(hits.indexOf(q.doc) + 1);
        if (base) plain.push(base.search(wordTokens(q.q), 10).indexOf(q.doc) + 1);
      }
      const p = score(product);
      lines.push(
        row([
          lang,
          engine,
          fx.questions.length,
          f(p.top1, 2),
          f(p.top5, 2),
          f(p.mrr, 2),
          ...(base
            ? (() => {
                const b = score(plain);
                return [f(b.top1, 2), f(b.top5, 2), f(b.mrr, 2)];
              })()
            : ["", "", ""]),
        ]),
      );
      base?.close();
    }
    await d.close();
  }
  sections.push(`### Multilingual fixture set: the answering document's rank

test/fixtures/multilingual: per language 10 short documents and 22 questions that use other inflected forms than the text (plural/singular, verb forms, compounds split or joined). One deployment per language; keyword retrieval through retrieve(). "Before": FTS5 unicode61 without stemming, queried with the question's words (no stop words were dropped for these languages before).

| lang | engine | questions | top-1 | top-5 | MRR | before: top-1 | before: top-5 | before: MRR |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${lines.join("\n")}`);
  console.log(sections.at(-1));
}

if (only.has("reindex")) {
  const n = Number(args.chunks);
  const ds = await loadScifact();
  const sentences = ds.corpus.flatMap((p) => p.text.split(/(?<=\.)\s+/)).filter((s) => s.length > 40);
  const text = (i: number) => Array.from({ length: 4 }, (_, j) => sentences[(i * 7 + j * 131) % sentences.length]).join(" ");
  const lines: string[] = [];
  for (const engine of ENGINES) {
    const d = await openDriver(engine);
    const dep = await d.deployment();
    const tl = performance.now();
    for (let i = 0; i < n; i += 1000)
      await d.addDocument(
        dep,
        Array.from({ length: Math.min(1000, n - i) }, (_, j) =>
          withTerms({ ord: j, source: `doc${i}`, text: text(i + j), headingPath: "", tokenCount: 90, textHash: `${i + j}` }),
        ),
      );
    const loadS = (performance.now() - tl) / 1000;
    const index = (d as unknown as { pg?: unknown }).pg ?? d.index;
    // the SQLite driver's repo answers synchronously: awaiting it is the same
    const store = index as ChunkIndexStore;
    await store.keywordReindexRequest(dep);
    const t = performance.now();
    const done = await reindexKeywords({ index: store, pinnedLanguages: async () => [] });
    const s = (performance.now() - t) / 1000;
    lines.push(row([engine, done, f(s, 1), f(done / s, 0), f(loadS, 1)]));
    console.log(lines.at(-1));
    await d.close();
  }
  sections.push(`### Re-indexing on upgrade

${n} chunks of ~90 words (SciFact sentences recombined) in one deployment, marked for re-analysis and rebuilt by the keyword reindex (batches of 500, one transaction each, the old index answering meanwhile; progress saved per batch).

| engine | chunks | seconds | chunks/s | (loading them first took, s) |
| --- | ---: | ---: | ---: | ---: |
${lines.join("\n")}`);
  console.log(sections.at(-1));
}

if (only.has("latency")) {
  const roots: [string, string][] = [
    ["this tree", join(import.meta.dir, "..")],
    ...(args.before ? [["before", args.before] as [string, string]] : []),
  ];
  const { startPostgres } = await import("../test/helpers/postgres.ts");
  const { freshDatabase } = {
    freshDatabase: async (url: string, name: string) => {
      const admin = new Bun.SQL(url, { max: 1 });
      await admin.unsafe(`CREATE DATABASE ${name}`);
      await admin.close();
      const u = url.replace(/\/docchat$/, `/${name}`);
      const db = new Bun.SQL(u, { max: 1 });
      await db`CREATE EXTENSION IF NOT EXISTS vector`;
      await db.close();
      return u;
    },
  };
  const cluster = await startPostgres({ settings: { shared_buffers: "512MB" } });
  const lines: string[] = [];
  const p95s = new Map<string, number[]>();
  try {
    let k = 0;
    // the trees alternate, round after round, so the machine's load falls on both alike
    for (let round = 1; round <= rounds; round++)
      for (const engine of ENGINES)
        for (const [label, root] of roots) {
          const env: Record<string, string> = { ...process.env } as Record<string, string>;
          if (engine === "postgres") env.DOCCHAT_DATABASE_URL = await freshDatabase(cluster.url, `lat_${k++}`);
          else delete env.DOCCHAT_DATABASE_URL;
          const proc = Bun.spawn([process.execPath, join(import.meta.dir, "lib/keyword-latency.ts"), root, String(args.chunks), "200"], {
            stdout: "pipe",
            stderr: "inherit",
            env,
          });
          const out = (await new Response(proc.stdout).text()).trim().split("\n").at(-1) ?? "{}";
          const r = JSON.parse(out) as { p50: number; p95: number; mean: number; loadSeconds: number };
          lines.push(row([engine, label, round, args.chunks ?? "", f(r.p50, 2), f(r.p95, 2), f(r.mean, 2), f(r.loadSeconds, 0)]));
          p95s.set(`${engine} ${label}`, [...(p95s.get(`${engine} ${label}`) ?? []), r.p95]);
          console.log(lines.at(-1));
        }
  } finally {
    await cluster.stop();
  }
  const ratios = args.before
    ? ENGINES.map(
        (e) =>
          `${e}: median p95 ${f(median(p95s.get(`${e} this tree`) ?? []), 2)} ms vs ${f(median(p95s.get(`${e} before`) ?? []), 2)} ms before = ${f(median(p95s.get(`${e} this tree`) ?? []) / median(p95s.get(`${e} before`) ?? []), 2)}×`,
      ).join("; ")
    : "";
  sections.push(`### Keyword retrieval latency at ${args.chunks} chunks, before and after

One deployment of ${args.chunks} synthetic chunks (~90 words, SciFact sentences recombined; analyzed as training would in this tree, the text itself in the tree before), 200 SciFact claims through retrieve() in keyword mode after 10 warm-up claims, each tree in a child process of the same run; PostgreSQL 15 + pgvector in a throwaway cluster (fsync off).

| engine | tree | round | chunks | p50 ms | p95 ms | mean ms | loading s |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |
${lines.join("\n")}

${ratios}`);
  console.log(sections.at(-1));
}

if (only.has("ingest")) {
  const roots: [string, string][] = [
    ["this tree", join(import.meta.dir, "..")],
    ...(args.before ? [["before", args.before] as [string, string]] : []),
  ];
  const lines: string[] = [];
  const rates = new Map<string, number[]>();
  const cpuRates = new Map<string, number[]>();
  // alternate the two trees so the machine's load falls on both alike
  for (let round = 0; round < rounds; round++)
    for (const [label, root] of roots) {
      const proc = Bun.spawn([process.execPath, join(import.meta.dir, "lib/ingest-rate.ts"), root, String(args.docs)], {
        stdout: "pipe",
        stderr: "inherit",
      });
      const out = (await new Response(proc.stdout).text()).trim().split("\n").at(-1) ?? "{}";
      const r = JSON.parse(out) as { docs: number; seconds: number; cpuSeconds: number };
      lines.push(
        row([label, round + 1, r.docs, f(r.seconds, 1), f(r.docs / r.seconds, 1), f(r.cpuSeconds, 1), f(r.docs / r.cpuSeconds, 1)]),
      );
      rates.set(label, [...(rates.get(label) ?? []), r.docs / r.seconds]);
      cpuRates.set(label, [...(cpuRates.get(label) ?? []), r.docs / r.cpuSeconds]);
      console.log(lines.at(-1));
    }
  sections.push(`### Ingest: documents/s

SciFact abstracts, one TXT each, through documents.push and the training worker (keyword-only, SQLite) in a child process per run, the two source trees alternating.

| tree | round | documents | seconds | documents/s | CPU seconds | documents per CPU-second |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
${lines.join("\n")}
${
  args.before
    ? `\nMedian documents/s: ${f(median(rates.get("this tree") ?? []), 1)} vs ${f(median(rates.get("before") ?? []), 1)} before = ${f(median(rates.get("this tree") ?? []) / median(rates.get("before") ?? []), 2)}×; per CPU-second: ${f(median(cpuRates.get("this tree") ?? []), 1)} vs ${f(median(cpuRates.get("before") ?? []), 1)} = ${f(median(cpuRates.get("this tree") ?? []) / median(cpuRates.get("before") ?? []), 2)}×`
    : ""
}`);
  console.log(sections.at(-1));
}

const body = `Command: \`bun bench/languages.bench.ts ${process.argv.slice(2).join(" ")}\`
Machine: ${describeMachine()}; load average ${f(loadAverage(), 1)} at the end (shared with other work: compare rows within this run).

${sections.join("\n\n")}`;
const TITLE = "Languages: the analyzed keyword index";
const everything = ["scifact", "multilingual", "reindex", "ingest", "latency"];
if (!args["no-write"]) {
  const path = join(import.meta.dir, "../BENCHMARKS.md");
  // a run of part of the benchmarks (--only) replaces only the subsections it measured, each saying how
  if (everything.every((x) => only.has(x))) await replaceSection(path, TITLE, body);
  else {
    const how = `Measured with \`bun bench/languages.bench.ts ${process.argv.slice(2).join(" ")}\`, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; ${describeMachine()}; load average ${f(loadAverage(), 1)} at the end (shared with other work: compare rows within this run).`;
    await replaceSubsections(
      path,
      TITLE,
      sections.map((s) => `${s}\n\n${how}`),
    );
  }
}
