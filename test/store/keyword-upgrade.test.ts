/**
 * A data dir from before the analyzer: its keyword tables are FTS5's own word splitting (unicode61, external
 * content over `chunks`), its chunks and documents have no language. It keeps answering as it did, is rebuilt
 * with analyzed terms (the training worker when idle, or `docchat reindex`), and a rebuild killed with -9 resumes.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { configFor, createServices } from "../../src/app.ts";
import { ANALYZER_VERSION } from "../../src/rag/terms.ts";
import { createChunkIndexWriter } from "../../src/store/sqlite/chunk-index.sqlite.ts";
import { withTerms } from "../helpers/analyzed.ts";
import { cliJson, runCliProcess, tempDir } from "../helpers/server.ts";
import { sqliteDb } from "../helpers/test-sql.ts";

setDefaultTimeout(120_000);
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh data dir (removed after the file) with its services and one owner's published deployment. */
async function dataDirWithDeployment(name: string) {
  const dir = tempDir();
  dirs.push(dir);
  const config = configFor(dir, { DOCCHAT_EMBEDDER: "none" });
  const services = await createServices(config);
  const account = await services.accounts.create({ email: `${name.toLowerCase()}@example.com`, tokens: 10 });
  const { deployment } = await services.deployments.create({ accountId: account.id, name, published: true });
  return { dir, config, services, deployment };
}

/** Turns every keyword table of a data dir into one the version before the analyzer built. */
function makeLegacy(dir: string): void {
  const db = new Database(join(dir, "docchat.db"));
  // the closed server's checkpoint thread may still be finishing its last checkpoint
  db.run("PRAGMA busy_timeout = 10000");
  for (const { n, deployment_id } of db
    .query<{ n: number; deployment_id: string }, []>("SELECT n, deployment_id FROM keyword_tables")
    .all()) {
    db.run(`DROP TABLE kw_${n}_vocab`);
    db.run(`DROP TABLE kw_${n}`);
    db.run(
      `CREATE VIRTUAL TABLE kw_${n} USING fts5(text, heading_path, content='chunks', content_rowid='id', tokenize = "unicode61 remove_diacritics 2 tokenchars '_'")`,
    );
    db.run(`CREATE VIRTUAL TABLE kw_${n}_vocab USING fts5vocab(kw_${n}, 'row')`);
    db.run(`INSERT INTO kw_${n} (rowid, text, heading_path) SELECT id, text, heading_path FROM chunks WHERE deployment_id = ?`, [
      deployment_id,
    ]);
  }
  db.run("UPDATE keyword_tables SET analyzer = 'unicode61'");
  db.run("UPDATE chunks SET lang = NULL");
  db.run("UPDATE documents SET lang = NULL");
  db.run("DELETE FROM index_meta WHERE key = 'keyword_analyzer'");
  db.close();
}

test("an upgraded data dir answers from its old index at once, then from the analyzed one", async () => {
  const { dir, config, services, deployment } = await dataDirWithDeployment("Up");
  let s = services;
  const docs: [string, string][] = [
    ["ferries.txt", "Ferry timetable\n\nThe ferry to Puffin Island leaves at nine and returns at five."],
    ["fähre.txt", "Fährplan\n\nDie Fähren zur Papageientaucherinsel fahren um neun Uhr ab."],
  ];
  for (const [name, text] of docs)
    await s.documents.push(
      { deploymentId: deployment.id, name, bytes: new TextEncoder().encode(text), train: true, replace: true },
      { waitMs: 0 },
    );
  await s.training.runUntilIdle();
  await s.close();
  makeLegacy(dir);
  // doctor says what waits, and which languages the documents are in (legacy: not known yet)
  const doctor = await cliJson(["doctor", "--offline"], { data: dir });
  expect(doctor.languages).toMatchObject({
    status: "warn",
    keyword_index: { pending_deployments: 1, pending_chunks: 2, languages: [{ lang: "?", documents: 2, chunks: 2 }] },
  });

  s = await createServices(config);
  try {
    const ask = (query: string) => s.retriever.retrieve({ deploymentId: deployment.id, query, topK: 3, mode: "keyword" });
    // the old index still answers the words it holds
    expect((await ask("When does the ferry to Puffin Island leave?")).hits[0]?.source).toBe("ferries");
    await s.training.runUntilIdle();
    const db = new Database(join(dir, "docchat.db"), { readonly: true });
    expect(db.query("SELECT analyzer FROM keyword_tables").all()).toEqual([{ analyzer: ANALYZER_VERSION }]);
    db.close();
    // now inflected forms meet: "ferries"/"leaving" find "ferry"/"leaves", "Fähre" finds "Fähren"
    expect((await ask("Which ferries are leaving for Puffin Island?")).hits[0]?.source).toBe("ferries");
    expect((await ask("Wann fährt die Fähre?")).hits[0]?.source).toBe("fähre");
    const langs = (await s.repos.documents.list(deployment.id)).map((d) => [d.name, d.lang]).sort();
    expect(langs).toEqual([
      ["ferries.txt", "en"],
      ["fähre.txt", "de"],
    ]);
    const healthy = await cliJson(["doctor", "--offline"], { data: dir });
    expect(healthy.languages).toMatchObject({
      status: "ok",
      keyword_index: {
        pending_deployments: 0,
        languages: expect.arrayContaining([expect.objectContaining({ lang: "de" }), expect.objectContaining({ lang: "en" })]),
      },
    });
  } finally {
    await s.close();
  }
});

test("docchat reindex killed with -9 midway resumes from its last batch and ends with a complete index", async () => {
  const { dir, config, services: s, deployment } = await dataDirWithDeployment("Kill");
  const CHUNKS = 20_000;
  const db = sqliteDb(s);
  const words = ["harbour", "ferry", "island", "timetable", "ticket", "weather", "storm", "crossing", "captain", "deck"];
  db.transaction(() => {
    for (let d = 0; d < CHUNKS / 100; d++) {
      const documentId = `doc_${d}`;
      db.run(
        "INSERT INTO documents (id, deployment_id, name, kind, content_hash, size, status, chunk_count, created_at, updated_at) VALUES (?, ?, ?, 'txt', ?, 1, 'completed', 100, 0, 0)",
        [documentId, deployment.id, `${documentId}.txt`, documentId],
      );
      createChunkIndexWriter(db).insert(
        deployment.id,
        documentId,
        Array.from({ length: 100 }, (_, i) =>
          withTerms({
            ord: i,
            source: documentId,
            text: `Chunk ${d}-${i}: the ${words[i % 10]} and the ${words[(i * 7 + d) % 10]} of passage ${d * 100 + i}.`,
            headingPath: "",
            tokenCount: 12,
            textHash: `${d}-${i}`,
          }),
        ),
      );
    }
  })();
  await s.close();
  makeLegacy(dir);

  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../src/main.ts"), "reindex", "--keywords-only", "--data", dir], {
    stdout: "pipe",
    stderr: "pipe",
  });
  // kill -9 once a batch or two is saved (the progress lines are for a terminal: the database tells)
  const watch = new Database(join(dir, "docchat.db"), { readonly: true });
  for (let i = 0; i < 6000; i++) {
    const p = watch.query<{ last_id: number }, []>("SELECT last_id FROM keyword_reindex").get();
    if (p && p.last_id > 0) break;
    await Bun.sleep(5);
  }
  watch.close();
  proc.kill(9);
  await proc.exited;
  const mid = new Database(join(dir, "docchat.db"), { readonly: true });
  const progress = mid.query<{ last_id: number }, []>("SELECT last_id FROM keyword_reindex").get();
  mid.close();
  expect(progress?.last_id).toBeGreaterThan(0);

  const again = await runCliProcess(["reindex", "--keywords-only", "--data", dir, "--json"]);
  expect(again.code).toBe(0);
  const { keyword_chunks } = JSON.parse(again.stdout) as { keyword_chunks: number };
  // it went on from the saved batch, not from the start
  expect(keyword_chunks).toBeLessThan(CHUNKS);
  expect(keyword_chunks).toBeGreaterThan(0);
  const after = await createServices(config);
  try {
    expect(await after.repos.termStats.totalChunks(deployment.id)).toBe(CHUNKS);
    const df = await after.repos.termStats.documentFrequencies(deployment.id, ["harbour", "passag"]);
    expect(df.get("harbour")).toBe(CHUNKS / 10 + CHUNKS / 10 - CHUNKS / 100);
    expect(df.get("passag")).toBe(CHUNKS);
    expect(await after.repos.chunkIndex.keywordReindexPending(ANALYZER_VERSION)).toEqual([]);
  } finally {
    await after.close();
  }
});
