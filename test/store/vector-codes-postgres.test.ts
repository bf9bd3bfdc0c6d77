/**
 * Vector search on PostgreSQL from the codes each node holds (vector-codes.pg.ts): the exact top hit and the recall
 * of the exact search, and every node's copy kept right while other nodes write — added, deleted, rolled back, more
 * changes than are kept, the table recreated, a deployment dropped, rows written before codes were.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { NewChunk } from "../../src/store/contract/index.ts";
import { createPgChunkIndex, type PgChunkIndex } from "../../src/store/postgres/chunk-index.pg.ts";
import { migratePg } from "../../src/store/postgres/migrate.pg.ts";
import { pgMigrations } from "../../src/store/postgres/migrations/index.ts";
import { EXACT_MAX } from "../../src/store/postgres/vector-codes.pg.ts";
import { withTerms } from "../helpers/analyzed.ts";
import { pgDocument } from "../helpers/index-drivers.ts";
import { type PgCluster, startPostgres } from "../helpers/postgres.ts";
import { randomVectors } from "../helpers/random-vectors.ts";

const DIM = 48;
const { random, randomUnit, nudged } = randomVectors(DIM, 777);
const chunk = (i: number, vector: Float32Array): NewChunk =>
  withTerms({ ord: i, source: `s${i}`, text: `passage ${i}`, headingPath: "", tokenCount: 2, textHash: `h${i}-${random()}`, vector });

let cluster: PgCluster;
const clients: SQL[] = [];
/** A node: its own pool and its own chunk index (its own held codes). */
async function node(opts: { codeBudgetBytes?: number } = {}): Promise<{ sql: SQL; index: PgChunkIndex }> {
  const sql = new SQL(cluster.url, { max: 3 });
  clients.push(sql);
  return { sql, index: await createPgChunkIndex(sql, opts) };
}
let writer: { sql: SQL; index: PgChunkIndex };
const BIG = "dep_big";
const SMALL = "dep_small";
const stored = new Map<number, Float32Array>();
let docs = 0;

async function addDocument(deploymentId: string, vectors: Float32Array[], w = writer): Promise<{ documentId: string; ids: number[] }> {
  const documentId = `doc_${++docs}`;
  return w.sql.begin(async (tx: SQL) => {
    await pgDocument(tx, deploymentId, documentId);
    const ids = await w.index.insert(
      deploymentId,
      documentId,
      vectors.map((v, i) => chunk(i, v)),
      tx,
    );
    return { documentId, ids };
  });
}

beforeAll(async () => {
  cluster = await startPostgres();
  writer = await node();
  await migratePg(writer.sql);
  await writer.index.createVectorTable(DIM);
  for (let b = 0; b < 5; b++) {
    const vectors = Array.from({ length: 500 }, randomUnit);
    const { ids } = await addDocument(BIG, vectors);
    for (const [i, id] of ids.entries()) stored.set(id, vectors[i] as Float32Array);
  }
  await addDocument(SMALL, Array.from({ length: 300 }, randomUnit));
}, 120_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  await cluster.stop();
});

const generation = async (sql: SQL, deploymentId: string) =>
  Number(((await sql`SELECT coalesce(max(gen), 0) AS g FROM vector_generations WHERE deployment_id = ${deploymentId}`) as { g: unknown }[])[0]?.g);

describe("vector search from held codes (PostgreSQL)", () => {
  test("past the exact size, held codes give the exact top hit and the exact search's ten nearest", async () => {
    expect(stored.size).toBeGreaterThan(EXACT_MAX);
    const { index } = await node();
    const ids = [...stored.keys()];
    let found = 0;
    for (let q = 0; q < 40; q++) {
      const target = ids[(q * 61) % ids.length] as number;
      const query = nudged(stored.get(target) as Float32Array, 0.05);
      const hits = await index.vectorSearch(BIG, query, 10);
      const exact = await index.exactVectorSearch(BIG, query, 10);
      expect(hits[0]?.id).toBe(exact[0]?.id as number);
      expect(hits[0]?.id).toBe(target);
      // distances are pgvector's own, in order
      expect(hits.map((h) => h.distance)).toEqual([...hits.map((h) => h.distance)].sort((a, b) => a - b));
      expect(Math.abs((hits[0]?.distance as number) - (exact[0]?.distance as number))).toBeLessThan(1e-6);
      const want = new Set(exact.map((h) => h.id));
      found += hits.filter((h) => want.has(h.id)).length;
    }
    expect(found / 400).toBeGreaterThanOrEqual(0.9);
  }, 60_000);

  test("a small deployment is searched exactly, by pgvector over its rows", async () => {
    const { index } = await node();
    for (let q = 0; q < 10; q++) {
      const query = randomUnit();
      const hits = await index.vectorSearch(SMALL, query, 20);
      const exact = await index.exactVectorSearch(SMALL, query, 20);
      expect(hits.map((h) => h.id)).toEqual(exact.map((h) => h.id));
    }
  }, 60_000);

  test("searches arriving together at a node that holds no codes yet read them once", async () => {
    const sql = new SQL(cluster.url, { max: 3 });
    clients.push(sql);
    let reads = 0;
    const counted = new Proxy(sql, {
      get(target, key, receiver) {
        if (key === "begin") reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const index = await createPgChunkIndex(counted);
    const queries = Array.from({ length: 5 }, randomUnit);
    const hits = await Promise.all(queries.map((q) => index.vectorSearch(BIG, q, 5)));
    expect(reads).toBe(1);
    for (const [i, q] of queries.entries()) expect(hits[i]?.[0]?.id).toBe((await index.exactVectorSearch(BIG, q, 1))[0]?.id as number);
  }, 60_000);

  test("another node's added and deleted vectors are found, and no longer found, by the next search", async () => {
    const reader = await node();
    const query = randomUnit();
    await reader.index.vectorSearch(BIG, query, 5); // codes now held
    const { documentId, ids } = await addDocument(BIG, [query]);
    expect((await reader.index.vectorSearch(BIG, query, 5))[0]?.id).toBe(ids[0] as number);
    const before = await generation(writer.sql, BIG);
    await writer.index.deleteDocument(documentId);
    // the vectors went with their chunks (a cascade), and that too raised the generation and noted the chunk
    expect(await generation(writer.sql, BIG)).toBeGreaterThan(before);
    const noted = (await writer.sql`SELECT count(*)::int AS n FROM vector_changes WHERE deployment_id = ${BIG} AND chunk_id = ${ids[0] as number} AND gen > ${before}`) as { n: number }[];
    expect(noted[0]?.n).toBe(1);
    const after = await reader.index.vectorSearch(BIG, query, 5);
    expect(after.map((h) => h.id)).not.toContain(ids[0] as number);
    expect(after).toHaveLength(5);
  }, 60_000);

  test("a rolled-back insert leaves nothing in any node's codes", async () => {
    const reader = await node();
    const query = randomUnit();
    await reader.index.vectorSearch(BIG, query, 5);
    const before = await generation(writer.sql, BIG);
    await expect(
      writer.sql.begin(async (tx) => {
        await pgDocument(tx, BIG, "doc_rolled_back");
        await writer.index.insert(BIG, "doc_rolled_back", [chunk(0, query)], tx);
        throw new Error("the document's status update failed");
      }),
    ).rejects.toThrow("status update failed");
    expect(await generation(writer.sql, BIG)).toBe(before);
    const hits = await reader.index.vectorSearch(BIG, query, 5);
    const rows = (await writer.sql`SELECT chunk_id FROM chunk_vectors WHERE chunk_id = ANY(${writer.sql.array(
      hits.map((h) => h.id),
      "INT8",
    )}::bigint[])`) as unknown[];
    expect(rows).toHaveLength(hits.length);
    expect(hits[0]?.distance).toBeGreaterThan(1e-6);
  }, 60_000);

  test("a node further behind than the changes kept reads its copy afresh", async () => {
    const reader = await node();
    await reader.index.vectorSearch(BIG, randomUnit(), 5);
    const added: { id: number; v: Float32Array }[] = [];
    for (let i = 0; i < 130; i++) {
      const v = randomUnit();
      const { ids } = await addDocument(BIG, [v]);
      added.push({ id: ids[0] as number, v });
    }
    const floor = Number(((await writer.sql`SELECT floor FROM vector_generations WHERE deployment_id = ${BIG}`) as { floor: unknown }[])[0]?.floor);
    expect(floor).toBeGreaterThan(0);
    for (const a of [added[0], added[64], added[129]]) {
      expect((await reader.index.vectorSearch(BIG, a?.v as Float32Array, 3))[0]?.id).toBe(a?.id as number);
    }
  }, 60_000);

  test("vectors stored before codes existed get codes computed and stored, with no generation changed", async () => {
    // as a database migrated from a version before codes holds them: vectors, no codes
    await writer.sql`DELETE FROM chunk_codes WHERE deployment_id = ${SMALL}`;
    const before = await generation(writer.sql, SMALL);
    const { index } = await node();
    const query = randomUnit();
    const hits = await index.vectorSearch(SMALL, query, 10);
    expect(hits.map((h) => h.id)).toEqual((await index.exactVectorSearch(SMALL, query, 10)).map((h) => h.id));
    const missing = (await writer.sql`SELECT count(*)::int AS n FROM chunk_vectors v WHERE deployment_id = ${SMALL}
      AND NOT EXISTS (SELECT 1 FROM chunk_codes c WHERE c.chunk_id = v.chunk_id)`) as { n: number }[];
    expect(missing[0]?.n).toBe(0);
    // and a node reading them now reads the stored codes: the same answers
    expect((await (await node()).index.vectorSearch(SMALL, query, 10)).map((h) => h.id)).toEqual(hits.map((h) => h.id));
    expect(await generation(writer.sql, SMALL)).toBe(before);
  }, 60_000);

  test("with no memory for codes, the HNSW index answers", async () => {
    const { index } = await node({ codeBudgetBytes: 0 });
    const target = [...stored.keys()][7] as number;
    const query = nudged(stored.get(target) as Float32Array, 0.02);
    const hits = await index.vectorSearch(BIG, query, 5);
    expect(hits[0]?.id).toBe(target);
    expect(hits.map((h) => h.id)).toEqual((await index.hnswSearch(BIG, query, 5)).map((h) => h.id));
  }, 60_000);

  test("a dropped deployment and a recreated vector table are never searched from old codes", async () => {
    const reader = await node();
    const other = "dep_dropped";
    const v = randomUnit();
    await addDocument(other, [v, randomUnit()]);
    expect(await reader.index.vectorSearch(other, v, 5)).toHaveLength(2);
    await writer.index.dropDeployment(other);
    expect(await reader.index.vectorSearch(other, v, 5)).toEqual([]);

    const query = randomUnit();
    expect(await reader.index.vectorSearch(BIG, query, 5)).toHaveLength(5);
    await writer.index.createVectorTable(DIM);
    expect(await reader.index.vectorSearch(BIG, query, 5)).toEqual([]);
    const { ids } = await addDocument(BIG, [query]);
    expect((await reader.index.vectorSearch(BIG, query, 5)).map((h) => h.id)).toEqual(ids);
  }, 60_000);

  test("a database whose vectors were written before codes: the migration watches the table, every node searches it", async () => {
    const admin = new SQL(cluster.url, { max: 1 });
    clients.push(admin);
    await admin.unsafe("CREATE DATABASE upgraded");
    const url = cluster.url.replace(/\/docchat$/, "/upgraded");
    const old = new SQL(url, { max: 2 });
    clients.push(old);
    await old`CREATE EXTENSION IF NOT EXISTS vector`;
    await migratePg(old, pgMigrations.filter((m) => m.version < 9));
    // the vector table as the version before wrote it: no codes, no triggers
    await old.unsafe(
      `CREATE TABLE chunk_vectors (chunk_id bigint PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE, deployment_id text NOT NULL, embedding vector(${DIM}) NOT NULL)`,
    );
    const vectors = Array.from({ length: 50 }, randomUnit);
    await old.begin(async (tx: SQL) => {
      await pgDocument(tx, "dep_old", "doc_old");
      for (const [i, v] of vectors.entries()) {
        const [row] = (await tx`INSERT INTO chunks (deployment_id, document_id, ord, source, text, token_count, text_hash)
          VALUES ('dep_old', 'doc_old', ${i}, 's', ${`old ${i}`}, 1, ${`o${i}`}) RETURNING id`) as { id: number }[];
        await tx`INSERT INTO chunk_vectors (chunk_id, deployment_id, embedding) VALUES (${row?.id}, 'dep_old', ${`[${Array.from(v).join(",")}]`}::vector)`;
      }
    });
    expect(await migratePg(old)).toEqual(pgMigrations.filter((m) => m.version >= 9).map((m) => m.version));
    const a = { sql: old, index: await createPgChunkIndex(old) };
    const other = new SQL(url, { max: 2 });
    clients.push(other);
    const b = await createPgChunkIndex(other);
    const query = vectors[17] as Float32Array;
    const first = await a.index.vectorSearch("dep_old", query, 3);
    expect(first[0]?.distance).toBeLessThan(1e-6);
    expect(first).toEqual(await b.vectorSearch("dep_old", query, 3));
    // a vector written now, by another node, through the table the migration began to watch
    const before = Number(((await old`SELECT coalesce(max(gen), 0) AS g FROM vector_generations WHERE deployment_id = 'dep_old'`) as { g: unknown }[])[0]?.g);
    const { ids } = await addDocument("dep_old", [nudged(query, 0.001)], { sql: old, index: b });
    expect(Number(((await old`SELECT max(gen) AS g FROM vector_generations WHERE deployment_id = 'dep_old'`) as { g: unknown }[])[0]?.g)).toBe(before + 1);
    expect((await a.index.vectorSearch("dep_old", query, 3)).map((h) => h.id)).toContain(ids[0] as number);
  }, 60_000);
});
