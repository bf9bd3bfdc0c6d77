/**
 * Chat throughput over real HTTP: the product server on port 0 with the extractive backend and the SQuAD articles
 * as documents, driven by a closed loop of concurrent clients; GET /api/v1/models runs in the same process and run
 * as the baseline (auth, rate limiting and JSON only), so the difference is the answering pipeline.
 */
import { createServer } from "../../src/server/create-server.ts";
import { percentile } from "./percentiles.ts";
import { openBenchDeployment, pushSquadArticles } from "./product-index.ts";
import type { SquadData } from "./squad.dataset.ts";

export interface ThroughputRow {
  endpoint: string;
  requests: number;
  perSecond: number;
  p50: number;
  p95: number;
  errors: number;
}

export async function closedLoop(
  seconds: number,
  concurrency: number,
  call: (i: number) => Promise<boolean>,
): Promise<Omit<ThroughputRow, "endpoint">> {
  const times: number[] = [];
  let errors = 0;
  let n = 0;
  const until = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const i = n++;
        const t = performance.now();
        if (!(await call(i))) errors++;
        times.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  return { requests: times.length, perSecond: times.length / elapsed, p50: percentile(times, 50), p95: percentile(times, 95), errors };
}

export async function chatThroughput(
  data: SquadData,
  opts: { seconds: number; concurrency: number; log?: (m: unknown) => void },
): Promise<ThroughputRow[]> {
  const b = await openBenchDeployment({ DOCCHAT_LLM: "extractive" });
  const app = createServer(b.services).listen({ port: 0, hostname: "127.0.0.1" });
  try {
    const url = `http://127.0.0.1:${app.server?.port}`;
    const { apiKey, deploymentId } = b;
    await pushSquadArticles(b.services, deploymentId, data.articles);
    const questions = data.questions.filter((q) => q.kind === "answerable").map((q) => q.question);
    const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
    const rows: ThroughputRow[] = [];
    const models = await closedLoop(opts.seconds, opts.concurrency, async () => (await fetch(`${url}/api/v1/models`, { headers })).ok);
    rows.push({ endpoint: "GET /api/v1/models", ...models });
    opts.log?.(rows.at(-1));
    const chat = await closedLoop(opts.seconds, opts.concurrency, async (i) => {
      const body = JSON.stringify({ model: deploymentId, messages: [{ role: "user", content: questions[i % questions.length] }] });
      const res = await fetch(`${url}/api/v1/chat/completions`, { method: "POST", headers, body });
      await res.arrayBuffer();
      return res.ok;
    });
    rows.push({ endpoint: "POST /api/v1/chat/completions (extractive, non-stream)", ...chat });
    opts.log?.(rows.at(-1));
    return rows;
  } finally {
    await app.stop(true);
    await b.close();
  }
}
