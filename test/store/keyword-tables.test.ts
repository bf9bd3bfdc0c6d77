/**
 * A deployment whose keyword table is missing (a data dir from before per-deployment tables, or a table lost) is
 * indexed again by the keyword reindex (the training worker runs it when idle), and searches find its documents.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { configFor, createServices } from "../../src/app.ts";
import { tempDir } from "../helpers/server.ts";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a deployment's missing keyword table is rebuilt from its chunks", async () => {
  const config = configFor(dir, { DOCCHAT_EMBEDDER: "none" });
  let s = await createServices(config);
  const account = await s.accounts.create({ email: "kw@example.com", tokens: 10 });
  const { deployment } = await s.deployments.create({ accountId: account.id, name: "Kw", published: true });
  const bytes = new TextEncoder().encode("Ferry timetable\n\nThe ferry to Puffin Island leaves at nine.");
  await s.documents.push({ deploymentId: deployment.id, name: "ferry.txt", bytes, train: true, replace: true }, { waitMs: 0 });
  await s.training.runUntilIdle();
  await s.close();

  const db = new Database(join(dir, "docchat.db"));
  const { n } = db.query<{ n: number }, [string]>("SELECT n FROM keyword_tables WHERE deployment_id = ?").get(deployment.id) as {
    n: number;
  };
  db.run(`DROP TABLE kw_${n}`);
  db.run(`DROP TABLE kw_${n}_vocab`);
  db.run("DELETE FROM keyword_tables WHERE deployment_id = ?", [deployment.id]);
  db.close();

  s = await createServices(config);
  try {
    await s.training.runUntilIdle();
    const r = await s.retriever.retrieve({ deploymentId: deployment.id, query: "When does the ferry to Puffin Island leave?", topK: 3 });
    expect(r.hits[0]?.source).toBe("ferry");
  } finally {
    await s.close();
  }
});
