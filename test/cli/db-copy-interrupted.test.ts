/**
 * `db copy` of a data dir whose server died while training a large document: its staged chunks (written where no
 * search sees them) travel as they are, and a node on the copy takes the document over and completes it.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { stagingDeployment } from "../../src/store/contract/chunk-index.contract.ts";
import { createChunkIndexWriter } from "../../src/store/sqlite/chunk-index.sqlite.ts";
import { closeDatabase, openDatabase } from "../../src/store/sqlite/db.ts";
import { withTerms } from "../helpers/analyzed.ts";
import { type ServeProcess, startServeProcess } from "../helpers/serve-process.ts";
import { cliJson, runCliProcess, tempDir } from "../helpers/server.ts";
import { freshPgDatabase, stopSharedCluster } from "../helpers/stores.ts";

setDefaultTimeout(90_000);
const dirs: string[] = [];
const dir = (p: string) => {
  const d = tempDir(p);
  dirs.push(d);
  return d;
};
afterAll(async () => {
  await stopSharedCluster();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("staged chunks of a document interrupted mid-training are copied unindexed, and a node on the copy completes it", async () => {
  const data = dir("docchat-copy-interrupted-");
  const env = { DOCCHAT_EMBEDDER: "none" };
  const cli = (args: string[]) => cliJson(args, { data, env });
  await cli(["account", "create", "--email", "owner@example.com"]);
  const deploymentId = String((await cli(["deployment", "create", "--account", "owner@example.com", "--name", "Manuals", "--publish"])).id);
  const file = join(dir("docchat-copy-files-"), "pump-manual.txt");
  writeFileSync(file, "Pump manual. Prime the centrifugal pump before starting it. Check the impeller seal every spring.");
  await cli(["documents", "add", deploymentId, file, "--no-train"]);

  // the state a server killed while staging the document leaves behind
  const db = await openDatabase(data);
  const { id: documentId } = db.query<{ id: string }, []>("SELECT id FROM documents").get() as { id: string };
  db.run("UPDATE documents SET status = 'processing', attempts = 1 WHERE id = ?", [documentId]);
  // the server recorded its (keyword-only) embedder when it started; the CLI's --no-train never did
  db.run("INSERT OR IGNORE INTO index_meta (key, value) VALUES ('embedder', 'none')");
  createChunkIndexWriter(db).insertStaged(documentId, [
    withTerms({
      ord: 0,
      source: "pump-manual.txt",
      text: "Pump manual. Prime the centrifugal pump",
      headingPath: "",
      tokenCount: 7,
      textHash: "h0",
    }),
  ]);
  closeDatabase(db);

  const url = await freshPgDatabase();
  const r = await runCliProcess(["db", "copy", "--from-data", data, "--to", url, "--json"], env);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const report = JSON.parse(r.stdout) as {
    ok: boolean;
    keyword_indexed_chunks: number;
    keyword_expected_chunks: number;
    tables: { table: string; target_rows: number }[];
  };
  expect(report.ok).toBe(true);
  expect(report.tables.find((t) => t.table === "chunks")?.target_rows).toBe(1);
  expect([report.keyword_indexed_chunks, report.keyword_expected_chunks]).toEqual([0, 0]);
  const sql = new SQL(url, { max: 1 });
  try {
    expect(
      ((await sql`SELECT deployment_id, kw_length FROM chunks`) as { deployment_id: string; kw_length: number | null }[]).map((x) => ({
        ...x,
      })),
    ).toEqual([{ deployment_id: stagingDeployment(documentId), kw_length: null }]);
    expect(((await sql`SELECT count(*)::int AS n FROM kw_postings`) as { n: number }[])[0]?.n).toBe(0);

    // a node on the copy finds the claim dead (no lease), clears the partial rows and trains the document
    const node = await startServeProcess({
      command: [process.execPath, join(import.meta.dir, "../../src/main.ts")],
      dataDir: dir("docchat-copy-node-"),
      env: { ...env, DOCCHAT_DATABASE_URL: url, DOCCHAT_TRAIN_WAIT_MS: "0" },
    });
    let status = "";
    try {
      for (let i = 0; i < 200 && status !== "completed"; i++) {
        status = ((await sql`SELECT status FROM documents WHERE id = ${documentId}`) as { status: string }[])[0]?.status ?? "";
        if (status !== "completed") await Bun.sleep(100);
      }
    } finally {
      expect(await (node as ServeProcess).stop("SIGTERM")).toBe(0);
    }
    expect(status).toBe("completed");
    const chunks = (await sql`SELECT deployment_id, kw_length FROM chunks WHERE document_id = ${documentId}`) as {
      deployment_id: string;
      kw_length: number | null;
    }[];
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((c) => c.deployment_id === deploymentId && c.kw_length !== null)).toBe(true);
  } finally {
    await sql.close();
  }
});
