/**
 * How long one piece of work holds the event loop (issue 20, N2: a question over a 3.2 MB chunk held it for seconds).
 * A 5 ms interval timer records the longest gap between its ticks while:
 *   - a 1-row × 200,000-column CSV is pushed and trained,
 *   - questions are answered over it (its cut chunks),
 *   - questions are answered over one 3 MB chunk that an older version stored whole (hits read up to 6000 chars),
 * each once alone and once with 8 questions at a time. An idle baseline (the timer alone) is measured in the same run:
 * on a shared machine the scheduler itself holds a process for a while.
 *
 *   bun bench/loop-slices.bench.ts [--questions 24] [--write]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { configFor, createServices } from "../src/app.ts";
import { createServer } from "../src/server/create-server.ts";
import { reportSection } from "./lib/benchmarks-md.ts";
import { watchEventLoopLag } from "./lib/event-loop-lag.ts";
import { describeMachine } from "./lib/machine-info.ts";

const startLoad = loadavg();
const { values } = parseArgs({ args: process.argv.slice(2), options: { questions: { type: "string" }, write: { type: "boolean" } } });
const questions = Number(values.questions ?? 24);
const log = (s: string) => process.stderr.write(`${s}\n`);

const dir = mkdtempSync(join(tmpdir(), "docchat-loop-"));
const services = await createServices(configFor(dir, { DOCCHAT_EMBEDDER: "none", DOCCHAT_TRAIN_WAIT_MS: "0" }));
await services.startWorkers();
const app = createServer(services).listen({ port: 0, hostname: "127.0.0.1" });
const url = `http://127.0.0.1:${app.server?.port}`;

try {
  const account = await services.accounts.create({ email: "loop@example.com", tokens: 10_000_000 });
  const wide = await services.deployments.create({ accountId: account.id, name: "Wide CSV", published: true });
  const old = await services.deployments.create({ accountId: account.id, name: "Old chunk", published: true });

  /** The longest slice while `work` runs, in ms. */
  const slice = async (work: () => Promise<unknown>) => {
    const lag = watchEventLoopLag();
    await work();
    return lag.stop();
  };
  const idle = await slice(() => Bun.sleep(3000));

  const columns = 200_000;
  const csv = `${["id", ...Array.from({ length: columns - 1 }, (_, i) => `c${i + 1}`)].join(",")}\n${[
    "row-one",
    ...Array.from({ length: columns - 1 }, (_, i) => `v${i + 1}`),
  ].join(",")}\n`;
  const ingest = await slice(async () => {
    const form = new FormData();
    form.set("file", new File([csv], "wide.csv"));
    const r = await fetch(`${url}/api/v1/documents`, { method: "POST", headers: { authorization: `Bearer ${wide.apiKey}` }, body: form });
    const { id } = (await r.json()) as { id: string };
    if (!(await services.documents.waitFor([id], 600_000))) throw new Error("the wide CSV did not train");
  });

  // what an earlier version stored: one prepared chunk of 3 MB, indexed as it is
  const huge = `region: north; ${Array.from({ length: 200_000 }, (_, i) => `metric${i}: ${i}`).join("; ")}`;
  const doc = await services.repos.documents.insert({
    id: "doc_old_huge",
    deploymentId: old.deployment.id,
    name: "wide.csv",
    kind: "csv",
    contentHash: "h",
    size: huge.length,
    chunks: JSON.stringify({ ord: 0, text: huge, headingPath: "", tokenCount: 1 }),
    pages: null,
    queue: true,
    replaceOnTrain: false,
  });
  await services.repos.training.refreshStatus(old.deployment.id);
  services.training.kick();
  if (!(await services.documents.waitFor([doc.id], 600_000))) throw new Error("the old chunk did not train");

  const ask = (key: string, q: string) =>
    fetch(`${url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "x", messages: [{ role: "user", content: q }] }),
    }).then((r) => r.arrayBuffer());
  const run = (key: string, q: (i: number) => string, atOnce: number) =>
    slice(async () => {
      for (let i = 0; i < questions; i += atOnce)
        await Promise.all(Array.from({ length: Math.min(atOnce, questions - i) }, (_, j) => ask(key, q(i + j))));
    });
  const rows = [
    ["idle (the timer alone, 3 s)", idle],
    ["pushing and training the 1 × 200,000-column CSV", ingest],
    [`${questions} questions over it, one at a time`, await run(wide.apiKey, (i) => `What is c${1000 + i * 7919}?`, 1)],
    [`${questions} questions over it, 8 at a time`, await run(wide.apiKey, (i) => `What is c${2000 + i * 7919}?`, 8)],
    [
      `${questions} questions over the 3 MB old chunk, one at a time`,
      await run(old.apiKey, (i) => `What is the north region metric${i * 997}?`, 1),
    ],
    [
      `${questions} questions over the 3 MB old chunk, 8 at a time`,
      await run(old.apiKey, (i) => `What is the north region metric${i * 991}?`, 8),
    ],
  ] as const;
  for (const [what, ms] of rows) log(`${what}: worst slice ${ms.toFixed(1)} ms`);
  const body = `Command: \`bun bench/loop-slices.bench.ts --questions ${questions}\` (in-process server, SQLite, extractive answers; a 5 ms
interval timer records the longest gap between its ticks while the work runs).

Machine: ${describeMachine()}; load average ${startLoad.map((l) => l.toFixed(1)).join(" / ")} (1/5/15 min) when the run started.

| Work | Longest event-loop slice |
|---|---:|
${rows.map(([what, ms]) => `| ${what} | ${ms.toFixed(1)} ms |`).join("\n")}

Aim: no question holds the loop more than 100 ms beyond what the idle baseline shows on this machine.`;
  await reportSection("Event-loop slices: wide rows and huge chunks", body, values.write);
} finally {
  await app.stop(true);
  await services.close();
  rmSync(dir, { recursive: true, force: true });
}
