/**
 * The PostgreSQL store's shared work, next to SQLite's, in one run:
 *   - key resolution (every gated request): a cached hit, and a miss (a database lookup) on PostgreSQL;
 *   - the training queue: N small documents (4 chunks each, no embedder) claimed and completed in batches of 64 by
 *     one worker on SQLite, one worker on PostgreSQL, and two workers (two stores, like two nodes) on PostgreSQL.
 * PostgreSQL is a throwaway cluster on 127.0.0.1 (fsync off: the box's disk is not what is measured).
 *
 *   bun bench/pg-training.bench.ts [--docs 600] [--no-write]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Store } from "../src/store/contract/index.ts";
import { createPgStore } from "../src/store/postgres/pg-store.ts";
import { createSqliteStore } from "../src/store/sqlite/sqlite-store.ts";
import { freshPgDatabase, stopSharedCluster } from "../test/helpers/stores.ts";
import { chunk, deployment, document, uid } from "../test/store/contract/core-fixtures.ts";
import { reportSection } from "./lib/benchmarks-md.ts";
import { describeMachine, loadAverage } from "./lib/machine-info.ts";

const { values: args } = parseArgs({
  options: { "no-write": { type: "boolean", default: false }, docs: { type: "string", default: "600" } },
});
const DOCS = Number(args.docs);
const HITS = 20_000;
const MISSES = 2_000;
const WORDS = "gannet puffin tern auk shearwater petrel fulmar kittiwake guillemot razorbill skua cormorant".split(" ");
const text = (i: number, j: number) => Array.from({ length: 50 }, (_, k) => WORDS[(i * 7 + j * 3 + k) % WORDS.length]).join(" ");

async function resolveCost(store: Store): Promise<{ hitUs: number; missUs: number | null }> {
  const d = await deployment(store);
  const hash = uid("hash");
  await store.repos.keys.put(d.id, hash, "dc_bench");
  await Bun.sleep(100); // the put's own notification (PostgreSQL) has come and gone
  await store.repos.keys.resolve(hash);
  let t = performance.now();
  for (let i = 0; i < HITS; i++) await store.repos.keys.resolve(hash);
  const hitUs = ((performance.now() - t) * 1000) / HITS;
  const keys = store.repos.keys as { invalidate?: () => void };
  if (!keys.invalidate) return { hitUs, missUs: null };
  t = performance.now();
  for (let i = 0; i < MISSES; i++) {
    keys.invalidate();
    await store.repos.keys.resolve(hash);
  }
  return { hitUs, missUs: ((performance.now() - t) * 1000) / MISSES };
}

/** Queues DOCS documents in one deployment of `stores[0]`, then every store drains the queue at once; docs/s. */
async function trainingRate(stores: Store[]): Promise<number> {
  const first = stores[0] as Store;
  const d = await deployment(first);
  for (let i = 0; i < DOCS; i++) await document(first, d.id, { name: `d${i}.txt` });
  const t = performance.now();
  const done = await Promise.all(
    stores.map(async (s) => {
      const worker = uid("w");
      let n = 0;
      for (;;) {
        const batch = await s.repos.training.claim(worker, 64, 60_000);
        if (batch.length === 0) return n;
        const items = batch.map((doc, i) => ({ doc, chunks: [0, 1, 2, 3].map((j) => chunk(text(i, j), j)) }));
        n += (await s.repos.training.completeBatch(worker, items, null)).length;
      }
    }),
  );
  const seconds = (performance.now() - t) / 1000;
  const total = done.reduce((a, b) => a + b, 0);
  if (total !== DOCS) throw new Error(`completed ${total} of ${DOCS}`);
  return DOCS / seconds;
}

const dir = mkdtempSync(join(tmpdir(), "docchat-bench-store-"));
const rows: string[] = [];
try {
  const lite = await createSqliteStore(dir);
  const url = await freshPgDatabase();
  const pgA = await createPgStore(url, { max: 4 });
  const pgB = await createPgStore(url, { max: 4 });
  try {
    const rl = await resolveCost(lite);
    const rp = await resolveCost(pgA);
    const sqliteRate = await trainingRate([lite]);
    const pgOne = await trainingRate([pgA]);
    const pgTwo = await trainingRate([pgA, pgB]);
    rows.push(
      "| | SQLite | PostgreSQL |",
      "| --- | ---: | ---: |",
      `| key resolve, cached hit (µs/call, ${HITS} calls) | ${rl.hitUs.toFixed(1)} | ${rp.hitUs.toFixed(1)} |`,
      `| key resolve, miss: one lookup (µs/call, ${MISSES} calls) | — | ${rp.missUs?.toFixed(0)} |`,
      `| training queue, 1 worker (documents/s, ${DOCS} × 4 chunks, batches of 64) | ${sqliteRate.toFixed(0)} | ${pgOne.toFixed(0)} |`,
      `| training queue, 2 workers on 2 stores (documents/s) | — | ${pgTwo.toFixed(0)} |`,
    );
  } finally {
    await pgA.close();
    await pgB.close();
    await lite.close();
  }
} finally {
  await stopSharedCluster();
  rmSync(dir, { recursive: true, force: true });
}
const body = [
  "Command: `bun bench/pg-training.bench.ts`",
  `Machine: ${describeMachine()}; load average ${loadAverage().toFixed(1)} at the end. PostgreSQL 15 throwaway cluster on 127.0.0.1 (fsync off), pool of 4 per store; the client and the server share the same 2 cores, so two workers measure contention and correctness of the shared queue here, not scale-out.`,
  "",
  ...rows,
].join("\n");
await reportSection("PostgreSQL training queue and key cache", body, !args["no-write"]);
