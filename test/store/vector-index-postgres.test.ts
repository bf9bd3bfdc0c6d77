/**
 * Nodes starting together on an empty PostgreSQL index with an embedder: exactly one creates the vector table
 * and records the embedder; the others wait, then find it — none drops a table another node has begun to fill.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { checkVectorIndex } from "../../src/documents/vector-index.ts";
import type { Embedder } from "../../src/rag/embedder.ts";
import { createPgStore, type PgStore } from "../../src/store/postgres/pg-store.ts";
import { freshPgDatabase, stopSharedCluster } from "../helpers/stores.ts";

const embedder = { id: "test-embedder", dimension: 8 } as Embedder;
let nodes: PgStore[] = [];
beforeAll(async () => {
  const url = await freshPgDatabase();
  nodes = await Promise.all([1, 2, 3, 4].map(() => createPgStore(url, { max: 3 })));
}, 60_000);
afterAll(async () => {
  for (const n of nodes) await n.close();
  await stopSharedCluster();
});

test("four nodes setting up the vector index at once leave one table, the embedder recorded and vectors on everywhere", async () => {
  const tableOid = async () =>
    ((await (nodes[0] as PgStore).sql`SELECT to_regclass('chunk_vectors')::oid AS oid`) as { oid: number | null }[])[0]?.oid;
  await Promise.all(nodes.map((n) => checkVectorIndex(n.repos.chunkIndex, embedder, () => n.hasChunks())));
  const created = await tableOid();
  expect(created).not.toBeNull();
  for (const n of nodes) {
    expect(n.repos.chunkIndex.hasVectors()).toBe(true);
    expect(await n.repos.chunkIndex.meta("embedder")).toBe("test-embedder@8");
  }
  // a node starting later finds the same table and leaves it alone
  await checkVectorIndex((nodes[3] as PgStore).repos.chunkIndex, embedder, () => (nodes[3] as PgStore).hasChunks());
  expect(await tableOid()).toBe(created);
  // another embedder is refused, not set up over the first
  await expect(
    checkVectorIndex((nodes[1] as PgStore).repos.chunkIndex, { id: "other", dimension: 4 } as Embedder, async () => false),
  ).rejects.toThrow(/reindex/);
});
