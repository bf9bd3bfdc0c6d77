/**
 * Scale-out throughput (issue 12): `docchat serve` processes on 127.0.0.1 — one on SQLite, then one and two on one
 * PostgreSQL 15 + pgvector (a throwaway cluster with default durability: fsync and synchronous_commit on) —
 * answering the same extractive chat questions over the SQuAD articles and GET /api/v1/models, driven by a
 * closed loop of concurrent clients in this process, round-robin over the nodes. Everything shares this
 * machine's cores, so on a small box the PostgreSQL server, the nodes and the client compete: see the notes.
 *
 *   bun bench/scale-out.bench.ts [--seconds 10] [--concurrency 32] [--write]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { configFor, createServices } from "../src/app.ts";
import { startPostgres } from "../test/helpers/postgres.ts";
import { type ServeProcess, startServeProcess } from "../test/helpers/serve-process.ts";
import { reportSection } from "./lib/benchmarks-md.ts";
import { closedLoop, type ThroughputRow } from "./lib/chat-throughput.ts";
import { describeMachine } from "./lib/machine-info.ts";
import { pushSquadArticles } from "./lib/product-index.ts";
import { loadSquad } from "./lib/squad.dataset.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { seconds: { type: "string" }, concurrency: { type: "string" }, write: { type: "boolean" } },
});
const seconds = Number(values.seconds ?? 10);
const concurrency = Number(values.concurrency ?? 32);
const startLoad = loadavg();
const squad = await loadSquad();
const questions = squad.questions.filter((q) => q.kind === "answerable").map((q) => q.question);
const MAIN = join(import.meta.dir, "../src/main.ts");

interface Setup {
  label: string;
  env: Record<string, string>;
  nodes: number;
}

const baseEnv = { DOCCHAT_EMBEDDER: "none", DOCCHAT_LLM: "extractive", DOCCHAT_RATE_LIMIT_SCALE: "100000", DOCCHAT_TRAIN_WAIT_MS: "0" };

/** Seeds a deployment with the SQuAD articles through the product's own services, then serves it from `nodes` processes. */
async function measure(setup: Setup): Promise<ThroughputRow[]> {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), "docchat-scale-"));
    dirs.push(d);
    return d;
  };
  const env = { ...baseEnv, ...setup.env };
  const seedDir = dir();
  const seeder = await createServices(configFor(seedDir, env));
  const account = await seeder.accounts.create({ email: `bench-${Date.now()}@example.com`, tokens: 1_000_000_000 });
  const { deployment, apiKey } = await seeder.deployments.create({ accountId: account.id, name: "Scale", published: true });
  await pushSquadArticles(seeder, deployment.id, squad.articles);
  await seeder.close();
  const nodes: ServeProcess[] = [];
  try {
    // SQLite allows one server per data dir: that node serves the seeded dir itself
    for (let i = 0; i < setup.nodes; i++) {
      nodes.push(
        await startServeProcess({ command: [process.execPath, MAIN], dataDir: setup.env.DOCCHAT_DATABASE_URL ? dir() : seedDir, env }),
      );
    }
    const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
    const node = (i: number) => (nodes[i % nodes.length] as ServeProcess).url;
    const rows: ThroughputRow[] = [];
    // warm-up
    await closedLoop(2, concurrency, async (i) => (await fetch(`${node(i)}/api/v1/models`, { headers })).ok);
    const models = await closedLoop(seconds, concurrency, async (i) => (await fetch(`${node(i)}/api/v1/models`, { headers })).ok);
    rows.push({ endpoint: "GET /api/v1/models", ...models });
    console.log(setup.label, rows.at(-1));
    const chat = await closedLoop(seconds, concurrency, async (i) => {
      const body = JSON.stringify({ model: deployment.id, messages: [{ role: "user", content: questions[i % questions.length] }] });
      const res = await fetch(`${node(i)}/api/v1/chat/completions`, { method: "POST", headers, body });
      await res.arrayBuffer();
      return res.ok;
    });
    rows.push({ endpoint: "POST /api/v1/chat/completions (extractive)", ...chat });
    console.log(setup.label, rows.at(-1));
    return rows;
  } finally {
    for (const n of nodes) await n.stop("SIGTERM");
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

const cluster = await startPostgres({ fast: false });
const results: { label: string; rows: ThroughputRow[] }[] = [];
try {
  const setups: Setup[] = [
    { label: "1 node, SQLite", env: {}, nodes: 1 },
    { label: "1 node, PostgreSQL", env: { DOCCHAT_DATABASE_URL: cluster.url }, nodes: 1 },
    { label: "2 nodes, PostgreSQL", env: { DOCCHAT_DATABASE_URL: cluster.url }, nodes: 2 },
  ];
  for (const setup of setups) {
    results.push({ label: setup.label, rows: await measure(setup) });
  }
} finally {
  await cluster.stop();
}

const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 0 });
const table = [
  "| Setup | Endpoint | req/s | p50 | p95 | errors |",
  "|---|---|---:|---:|---:|---:|",
  ...results.flatMap((r) =>
    r.rows.map(
      (x) => `| ${r.label} | ${x.endpoint} | ${fmt(x.perSecond)} | ${x.p50.toFixed(1)} ms | ${x.p95.toFixed(1)} ms | ${x.errors} |`,
    ),
  ),
].join("\n");
const per = (label: string, endpoint: string) =>
  results.find((r) => r.label === label)?.rows.find((x) => x.endpoint.startsWith(endpoint))?.perSecond ?? 0;
const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : "n/a");
const ratios = ["GET /api/v1/models", "POST /api/v1/chat"]
  .map(
    (e) =>
      `- ${e}: 1 PostgreSQL node / 1 SQLite node = **${ratio(per("1 node, PostgreSQL", e), per("1 node, SQLite", e))}**; 2 PostgreSQL nodes / 1 PostgreSQL node = **${ratio(per("2 nodes, PostgreSQL", e), per("1 node, PostgreSQL", e))}**`,
  )
  .join("\n");
const body = `Command: \`bun bench/scale-out.bench.ts --seconds ${seconds} --concurrency ${concurrency}${values.write ? " --write" : ""}\`
(${concurrency} concurrent clients in the benchmark process, round-robin over the nodes, ${seconds} s per endpoint after a 2 s warm-up;
${squad.articles.length} SQuAD articles as documents, keyword retrieval, extractive answers; \`DOCCHAT_RATE_LIMIT_SCALE=100000\` so the
limiter counts — on PostgreSQL, one shared-table write per request — but never answers 429; PostgreSQL 15 + pgvector 0.8.6 in a
throwaway cluster on the same machine, fsync and synchronous_commit on).

Machine: ${describeMachine()}; load average ${startLoad.map((l) => l.toFixed(1)).join(" / ")} (1/5/15 min) when the run started.

${table}

${ratios}`;
await reportSection("Scale-out: nodes on PostgreSQL", body, values.write);
