/**
 * Child process of bench/languages.bench.ts: SciFact abstracts as TXT documents through the product of the source
 * tree given (so two trees compare in one run), keyword-only on a fresh SQLite data dir. Prints {docs, seconds,
 * cpuSeconds} (the process's CPU time over the same span: less at the mercy of a shared machine's load).
 *
 *   bun bench/lib/ingest-rate.ts ROOT DOCS
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [root = join(import.meta.dir, "../.."), docsArg = "3000"] = process.argv.slice(2);
const { configFor, createServices } = (await import(join(root, "src/app.ts"))) as typeof import("../../src/app.ts");
const lines = (await Bun.file(join(import.meta.dir, "../../../shared/data/dev/scifact/corpus.jsonl")).text())
  .split("\n")
  .filter(Boolean)
  .slice(0, Number(docsArg))
  .map((l) => JSON.parse(l) as { _id: string; title: string; text: string });
const dir = mkdtempSync(join(tmpdir(), "docchat-ingest-rate-"));
const s = await createServices(configFor(dir, { DOCCHAT_EMBEDDER: "none" }));
try {
  const account = await s.accounts.create({ email: "rate@example.com", tokens: 10 });
  const { deployment } = await s.deployments.create({ accountId: account.id, name: "Rate", published: true });
  const t = performance.now();
  const cpu = process.cpuUsage();
  for (const d of lines)
    await s.documents.push(
      {
        deploymentId: deployment.id,
        name: `${d._id}.txt`,
        bytes: new TextEncoder().encode(`${d.title}\n\n${d.text}`),
        train: true,
        replace: true,
      },
      { waitMs: 0 },
    );
  await s.training.runUntilIdle();
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ docs: lines.length, seconds: (performance.now() - t) / 1000, cpuSeconds: (used.user + used.system) / 1e6 }));
} finally {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
}
