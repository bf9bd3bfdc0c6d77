/**
 * Child process of bench/languages.bench.ts: keyword retrieval latency of the source tree given (so two trees
 * compare in one run) — N synthetic chunks in one deployment of a fresh store (synthetic-deployment.ts: a SQLite
 * data dir, or the PostgreSQL database DOCCHAT_DATABASE_URL names), then SciFact claims through the product's
 * retrieve() in keyword mode after 10 warm-up claims. Prints {p50, p95, mean, loadSeconds}.
 *
 *   bun bench/lib/keyword-latency.ts ROOT CHUNKS QUERIES
 */
import { join } from "node:path";
import { claims, syntheticDeployment } from "./synthetic-deployment.ts";

const [root = join(import.meta.dir, "../.."), chunksArg = "100000", queriesArg = "200"] = process.argv.slice(2);
const questions = await claims();
const { s, deploymentId, loadSeconds, close } = await syntheticDeployment(root, Number(chunksArg));
try {
  const ask = (q: string) => s.retriever.retrieve({ deploymentId, query: q, topK: 5, mode: "keyword" });
  for (const q of questions.slice(0, 10)) await ask(q);
  const times: number[] = [];
  for (const q of questions.slice(10, 10 + Number(queriesArg))) {
    const t = performance.now();
    await ask(q);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] as number;
  console.log(JSON.stringify({ p50: at(0.5), p95: at(0.95), mean: times.reduce((a, b) => a + b, 0) / times.length, loadSeconds }));
} finally {
  await close();
}
