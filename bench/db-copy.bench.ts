/**
 * Moving up (issue 12): how long `docchat db copy` takes for a data dir built by the real app — SciFact abstracts
 * (../shared/data/dev/scifact/corpus.jsonl) added with `docchat documents add --wait`, embedded by a fake
 * OpenAI-compatible embeddings server (test/helpers/fake-model-server.ts, 384 dimensions) so the copy moves
 * vectors too — into a throwaway PostgreSQL 15 + pgvector cluster (fsync on). Reports the first copy (everything
 * written, keyword postings rebuilt, vectors moved, then verified) and a re-run (compare only, nothing written).
 *
 *   bun bench/db-copy.bench.ts [--docs 5183] [--no-write]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startFakeModelServer } from "../test/helpers/fake-model-server.ts";
import { startPostgres } from "../test/helpers/postgres.ts";
import { reportSection } from "./lib/benchmarks-md.ts";
import { describeMachine } from "./lib/machine-info.ts";

const { values: args } = parseArgs({
  options: { docs: { type: "string", default: "5183" }, "no-write": { type: "boolean", default: false } },
});
const DOCS = Number(args.docs);
const work = mkdtempSync(join(tmpdir(), "docchat-bench-copy-"));
const data = join(work, "data");
const main = join(import.meta.dir, "../src/main.ts");

async function cli(argv: string[], env: Record<string, string>): Promise<{ stdout: string; ms: number }> {
  const t = performance.now();
  const p = Bun.spawn([process.execPath, main, ...argv], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`docchat ${argv.slice(0, 2).join(" ")} exited ${code}: ${stderr}`);
  return { stdout, ms: performance.now() - t };
}

const models = startFakeModelServer({ dimension: 384 });
const cluster = await startPostgres({ fast: false });
try {
  const env = {
    DOCCHAT_DATA: data,
    DOCCHAT_EMBEDDER: "auto",
    DOCCHAT_MODELS: join(work, "no-models"),
    DOCCHAT_EMBEDDINGS_URL: models.url,
    DOCCHAT_EMBEDDINGS_MODEL: "nomic-embed-text",
    DOCCHAT_LOG_LEVEL: "warn",
  };
  const docs = join(work, "docs");
  mkdirSync(docs, { recursive: true });
  const lines = (await Bun.file(join(import.meta.dir, "../../shared/data/dev/scifact/corpus.jsonl")).text())
    .trim()
    .split("\n")
    .slice(0, DOCS);
  for (const l of lines) {
    const d = JSON.parse(l) as { _id: string; title: string; text: string };
    writeFileSync(join(docs, `${d._id}.txt`), `${d.title}\n\n${d.text}`);
  }
  await cli(["account", "create", "--email", "bench@example.com", "--tokens", "1000"], env);
  const dep = JSON.parse(
    (await cli(["deployment", "create", "--account", "bench@example.com", "--name", "SciFact", "--json"], env)).stdout,
  ) as { id: string };
  const added = await cli(["documents", "add", dep.id, docs, "--wait", "--json"], env);
  console.log(`data dir built: ${lines.length} documents in ${(added.ms / 1000).toFixed(1)} s`);

  const first = await cli(["db", "copy", "--from-data", data, "--to", cluster.url, "--json"], env);
  const report = JSON.parse(first.stdout) as { ok: boolean; action: string; tables: { table: string; target_rows: number }[] };
  if (!report.ok || report.action !== "copied") throw new Error(`first copy: ${first.stdout}`);
  const again = await cli(["db", "copy", "--from-data", data, "--to", cluster.url, "--json"], env);
  const second = JSON.parse(again.stdout) as { ok: boolean; action: string };
  if (!second.ok || second.action !== "unchanged") throw new Error(`re-run: ${again.stdout}`);
  const rows = (t: string) => report.tables.find((x) => x.table === t)?.target_rows ?? 0;
  const total = report.tables.reduce((s, t) => s + t.target_rows, 0);
  const chunks = rows("chunks");
  const f = (x: number) => Math.round(x).toLocaleString("en-US");
  const body = [
    `Command: \`bun bench/db-copy.bench.ts --docs ${DOCS}\``,
    `Machine: ${describeMachine()}; PostgreSQL 15 throwaway cluster on 127.0.0.1 (fsync on), CLI and server on the same 2 cores; one run.`,
    "",
    "| data dir | rows in all tables | chunks | vectors (384 dims) | first copy (copy + verify) | chunks/s | re-run (verify only) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    `| ${f(lines.length)} SciFact abstracts | ${f(total)} | ${f(chunks)} | ${f(rows("vectors"))} | ${(first.ms / 1000).toFixed(1)} s | ${f(chunks / (first.ms / 1000))} | ${(again.ms / 1000).toFixed(1)} s |`,
    "",
    "Times are whole CLI runs (process start, SQLite open, migrations, copy in one transaction with keyword postings rebuilt per chunk, vectors moved, then both sides read back and checksummed).",
  ].join("\n");
  await reportSection("Moving up: db copy (SQLite → PostgreSQL)", body, !args["no-write"]);
} finally {
  await cluster.stop();
  await models.close();
  rmSync(work, { recursive: true, force: true });
}
