/**
 * When the embeddings server is away, one failed call is enough: the rest of the claimed documents wait in the
 * queue with their reason at once, instead of each waiting out the server's timeouts and retries again.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { configFor, createServices } from "../../src/app.ts";
import { startFakeModelServer } from "../helpers/fake-model-server.ts";
import { tempDir } from "../helpers/server.ts";

const dirs = [tempDir(), tempDir("docchat-no-models-")];
const fake = startFakeModelServer({ dimension: 16 });
afterAll(async () => {
  await fake.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Services embedding through the fake model server, without retries. */
const remoteEmbedderServices = (dataDir: string) =>
  createServices(
    configFor(dataDir, {
      DOCCHAT_EMBEDDER: "auto",
      DOCCHAT_MODELS: dirs[1] as string,
      DOCCHAT_EMBEDDINGS_URL: fake.url,
      DOCCHAT_EMBEDDINGS_MODEL: "nomic-embed-text",
      DOCCHAT_EMBEDDINGS_RETRIES: "0",
    }),
  );

test("an embeddings server that fails makes a batch wait after one call, and the batch completes once it is back", async () => {
  const s = await remoteEmbedderServices(dirs[0] as string);
  try {
    await s.embedder();
    const account = await s.accounts.create({ email: "outage@example.com", tokens: 1000 });
    const { deployment } = await s.deployments.create({ accountId: account.id, name: "Outage", published: true });
    fake.set({ failing: true });
    const before = fake.embeddingCalls().length;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const bytes = new TextEncoder().encode(`Notice ${i}: the ferry to island ${i} leaves at ${8 + i} o'clock.`);
      ids.push(
        (await s.documents.push({ deploymentId: deployment.id, name: `notice-${i}.txt`, bytes, train: true, replace: true }, { waitMs: 0 }))
          .document.id,
      );
    }
    await s.training.runUntilIdle();
    expect(fake.embeddingCalls().length - before).toBe(1);
    const waiting = await Promise.all(ids.map((id) => s.repos.documents.get(id)));
    expect(waiting.map((d) => [d?.status, d?.errorCode])).toEqual(ids.map(() => ["queued", "waiting_for_embeddings"]));
    fake.set({ failing: false });
    await s.training.runUntilIdle();
    const done = await Promise.all(ids.map((id) => s.repos.documents.get(id)));
    expect(done.map((d) => d?.status)).toEqual(ids.map(() => "completed"));
  } finally {
    await s.close();
  }
});

test("a bulk load training as it stores, with the embeddings server away, stores every document queued and trains them once it is back", async () => {
  const data = tempDir();
  dirs.push(data);
  const s = await remoteEmbedderServices(data);
  try {
    await s.embedder();
    const account = await s.accounts.create({ email: "bulk-outage@example.com", tokens: 1000 });
    const { deployment } = await s.deployments.create({ accountId: account.id, name: "Bulk outage", published: true });
    fake.set({ failing: true });
    const results: { ok: boolean; outcome?: string; id?: string }[] = [];
    await s.documents.pushMany(
      Array.from({ length: 8 }, (_, i) => ({
        deploymentId: deployment.id,
        name: `bulletin-${i}.txt`,
        bytes: new TextEncoder().encode(`Bulletin ${i}: the harbour crane lifts ${i + 2} containers an hour.`),
        train: true,
        replace: true,
      })),
      {
        concurrency: 2,
        trainHere: true,
        onResult: (_i, r) => results.push(r.ok ? { ok: true, outcome: r.result.outcome, id: r.result.document.id } : { ok: false }),
      },
    );
    expect(results.map((r) => [r.ok, r.outcome])).toEqual(results.map(() => [true, "queued"]));
    const ids = results.map((r) => r.id as string);
    expect((await Promise.all(ids.map((id) => s.repos.documents.get(id)))).map((d) => d?.status)).toEqual(ids.map(() => "queued"));
    fake.set({ failing: false });
    await s.training.runUntilIdle();
    expect((await Promise.all(ids.map((id) => s.repos.documents.get(id)))).map((d) => d?.status)).toEqual(ids.map(() => "completed"));
  } finally {
    await s.close();
  }
});
