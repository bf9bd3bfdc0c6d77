/**
 * Where a keyword retrieve() spends its time, in the source tree given (this tree or a checkout from before): loads
 * N synthetic chunks (synthetic-deployment.ts, as keyword-latency.ts does), then times each store call retrieve() makes (round trips
 * and their milliseconds), the searched terms and the postings rows they match, over Q SciFact claims. On
 * PostgreSQL (DOCCHAT_DATABASE_URL) it also prints EXPLAIN ANALYZE of the keyword query for the claim nearest the
 * p95. VACUUM=1 vacuums and analyzes the database after loading.
 *
 *   bun bench/lib/keyword-steps.ts ROOT CHUNKS QUERIES
 */
import { join } from "node:path";
import { claims as scifactClaims, syntheticDeployment } from "./synthetic-deployment.ts";

const [root = join(import.meta.dir, "../.."), chunksArg = "30000", queriesArg = "200"] = process.argv.slice(2);
const claims = await scifactClaims();
const { s, deploymentId, close } = await syntheticDeployment(root, Number(chunksArg));
type Calls = { name: string; ms: number }[];
let calls: Calls = [];
let searched: string[] = [];
let dfs = new Map<string, number>();
// every store method retrieve() reaches, wrapped: one entry per call (a round trip on PostgreSQL unless cached)
const wrap = (o: Record<string, unknown>, names: string[]) => {
  for (const name of names) {
    const f = o[name] as ((...a: unknown[]) => Promise<unknown>) | undefined;
    if (typeof f !== "function") continue;
    o[name] = async (...a: unknown[]) => {
      const t = performance.now();
      const r = await f.apply(o, a);
      calls.push({ name, ms: performance.now() - t });
      if (name === "keywordSearch") searched = a[1] as string[];
      if (name === "documentFrequencies") for (const [k, v] of r as Map<string, number>) dfs.set(k, v);
      return r;
    };
  }
};
try {
  // VACUUM=1: the tables vacuumed and analyzed first, as autovacuum leaves a deployment in service (right after a
  // load up to a fifth of the postings are on pages not yet marked all-visible, and index-only scans read the heap)
  if (process.env.DOCCHAT_DATABASE_URL && process.env.VACUUM) {
    const admin = new Bun.SQL(process.env.DOCCHAT_DATABASE_URL, { max: 1 });
    await admin`VACUUM (ANALYZE)`;
    await admin.close();
  }
  wrap(s.repos.chunkIndex as unknown as Record<string, unknown>, ["keywordSearch", "getChunks", "vectorSearch"]);
  wrap(s.repos.termStats as unknown as Record<string, unknown>, ["documentFrequencies", "totalChunks", "languages"]);
  const ask = (q: string) => s.retriever.retrieve({ deploymentId: deploymentId, query: q, topK: 5, mode: "keyword" });
  for (const q of claims.slice(0, 10)) await ask(q);
  const per: { q: string; ms: number; calls: Calls; searched: string[]; rows: number }[] = [];
  for (const q of claims.slice(10, 10 + Number(queriesArg))) {
    calls = [];
    dfs = new Map();
    searched = [];
    const t = performance.now();
    await ask(q);
    const ms = performance.now() - t;
    per.push({ q, ms, calls, searched, rows: searched.reduce((a, w) => a + (dfs.get(w) ?? 0), 0) });
  }
  const sorted = [...per].sort((a, b) => a.ms - b.ms);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as (typeof per)[number];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const byName = new Map<string, number[]>();
  for (const p of per) for (const c of p.calls) byName.set(c.name, [...(byName.get(c.name) ?? []), c.ms]);
  const summary = {
    root,
    p50: at(0.5).ms,
    p95: at(0.95).ms,
    mean: mean(per.map((p) => p.ms)),
    callsPerRetrieve: mean(per.map((p) => p.calls.length)),
    steps: Object.fromEntries([...byName].map(([k, v]) => [k, { calls: v.length / per.length, meanMs: +mean(v).toFixed(2) }])),
    searchedTerms: mean(per.map((p) => p.searched.length)),
    postingsRows: mean(per.map((p) => p.rows)),
    postingsRowsP95: [...per.map((p) => p.rows)].sort((a, b) => a - b)[Math.floor(0.95 * per.length)],
    slowest: sorted.slice(-3).map((p) => ({
      q: p.q,
      ms: +p.ms.toFixed(1),
      rows: p.rows,
      searched: p.searched,
      calls: p.calls.map((c) => `${c.name} ${c.ms.toFixed(1)}`),
    })),
  };
  console.log(JSON.stringify(summary, null, 1));
  if (process.env.DOCCHAT_DATABASE_URL && process.env.EXPLAIN) {
    const sql = new Bun.SQL(process.env.DOCCHAT_DATABASE_URL, { max: 1 });
    const p = at(0.95);
    const ts = p.searched;
    // the keyword query as chunk-index.pg.ts sends it (numbers bound as parameters: float8), three times, the fastest kept
    let plan: { "QUERY PLAN": string }[] = [];
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      const r =
        (await sql`EXPLAIN (ANALYZE, BUFFERS) WITH s AS (SELECT chunks::float8 AS n, tokens::float8 / greatest(chunks, 1) AS avgdl FROM kw_stats WHERE deployment_id = ${deploymentId}),
        q AS (SELECT t.id, u.m * greatest(ln((s.n - t.df + 0.5) / (t.df + 0.5)), 1e-6) AS idf
              FROM unnest(${sql.array(ts, "TEXT")}::text[], ${sql.array(
                ts.map(() => 1),
                "INT4",
              )}::int[]) AS u(term, m)
              JOIN kw_terms t ON t.deployment_id = ${deploymentId} AND t.term = u.term CROSS JOIN s)
        SELECT p.chunk_id AS id,
               -sum(q.idf * (p.tf_text + ${0.5} * p.tf_heading) * ${2.2}
                    / ((p.tf_text + ${0.5} * p.tf_heading) + ${1.2} * (${0.25} + ${0.75} * p.len / greatest(s.avgdl, 1e-9)))) AS score
        FROM q JOIN kw_postings p ON p.term_id = q.id CROSS JOIN s
        GROUP BY p.chunk_id ORDER BY score, p.chunk_id LIMIT ${50}`) as { "QUERY PLAN": string }[];
      const ms = Number(/Execution Time: ([\d.]+)/.exec(r.at(-1)?.["QUERY PLAN"] ?? "")?.[1]);
      if (ms < best) {
        best = ms;
        plan = r;
      }
    }
    console.log(plan.map((r) => r["QUERY PLAN"]).join("\n"));
    await sql.close();
  }
} finally {
  await close();
}
