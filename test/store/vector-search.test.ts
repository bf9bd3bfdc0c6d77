/**
 * Vector search on SQLite past the exact threshold: binary codes (vector-codes.ts), held in memory or searched by
 * sqlite-vec, pick candidates, the full vectors rank them. And a data dir whose vectors predate the codes gets them when opened, even across a kill -9.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { configFor, createServices, type Services } from "../../src/app.ts";
import { closeDatabase, openDatabase, openDatabaseFile } from "../../src/store/sqlite/db.ts";
import { createChunkIndexWriter } from "../../src/store/sqlite/chunk-index.sqlite.ts";
import { CACHE_BYTES, createCodeCache, setCodeBudget } from "../../src/store/sqlite/vector-code-cache.ts";
import { CODE_SCHEME, vectorCoder } from "../../src/store/shared/vector-codes.ts";
import { CODES_TABLE, createVectorStore, VEC_TABLE } from "../../src/store/sqlite/vector-search.sqlite.ts";
import { withTerms } from "../helpers/analyzed.ts";
import { tempDir } from "../helpers/server.ts";
import { sqliteDb } from "../helpers/test-sql.ts";
import { randomVectors } from "../helpers/random-vectors.ts";

const DIM = 48;
const { randomUnit, nudged } = randomVectors(DIM, 12345);

const dataDir = tempDir("docchat-vec-");
let services: Services;
let big: string;
let small: string;
const stored = new Map<number, Float32Array>();

/** A stored (untrained) one-byte document row for chunks to belong to. */
const insertDocument = (s: Services, deploymentId: string, id: string) =>
  s.repos.documents.insert({
    id,
    deploymentId,
    name: `${id}.txt`,
    kind: "txt",
    contentHash: id,
    bytes: new Uint8Array([120]),
    parsed: "{}",
    pages: null,
    queue: false,
    replaceOnTrain: false,
  });

/** A document of chunks with these vectors; returns the chunks' ids. */
async function addDocument(deploymentId: string, documentId: string, vectors: Float32Array[], on: Services = services): Promise<number[]> {
  await insertDocument(on, deploymentId, documentId);
  const chunks = vectors.map((vector, i) =>
    withTerms({ ord: i, source: "vectors", text: `chunk ${i}`, headingPath: "", tokenCount: 2, textHash: `${documentId}-${i}`, vector }),
  );
  return on.repos.chunkIndex.insert(deploymentId, documentId, chunks);
}

/** A new deployment on `on`, a vector table, and one document of `n` random vectors. */
async function vectorDeployment(on: Services, n: number): Promise<{ deploymentId: string; vectors: Float32Array[] }> {
  const account = await on.accounts.create({ email: `v${n}-${Date.now()}@example.com`, tokens: 0 });
  const { deployment } = await on.deployments.create({ accountId: account.id, name: "V", published: true });
  await on.repos.chunkIndex.createVectorTable(DIM);
  const vectors = Array.from({ length: n }, randomUnit);
  await addDocument(deployment.id, `doc_${deployment.id}`, vectors, on);
  return { deploymentId: deployment.id, vectors };
}

async function fill(deploymentId: string, n: number): Promise<void> {
  const vectors = Array.from({ length: n }, randomUnit);
  const ids = await addDocument(deploymentId, `doc_${deploymentId}`, vectors);
  for (const [i, id] of ids.entries()) stored.set(id, vectors[i] as Float32Array);
}

beforeAll(async () => {
  services = await createServices(configFor(dataDir, { DOCCHAT_EMBEDDER: "none" }));
  const account = await services.accounts.create({ email: "vectors@example.com", tokens: 0 });
  const dep = () => services.deployments.create({ accountId: account.id, name: "V", published: true });
  big = (await dep()).deployment.id;
  small = (await dep()).deployment.id;
  await services.repos.chunkIndex.createVectorTable(DIM);
  await fill(big, 3000);
  await fill(small, 400);
}, 60_000);
afterAll(async () => {
  await services.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("the binary codes find the exact nearest chunk first, with its exact distance, and only the deployment's own", () => {
  const vectors = createVectorStore(sqliteDb(services));
  const bigIds = [...stored.keys()].filter((id) => id < Math.min(...[...stored.keys()]) + 3000);
  for (let q = 0; q < 40; q++) {
    // near a stored vector (a question close to one passage) or anywhere (a question close to none)
    const query = q % 2 === 0 ? nudged(stored.get(bigIds[q * 61] as number) as Float32Array, 0.3) : randomUnit();
    const exact = vectors.exact(big, query, 10);
    const quantized = vectors.quantized(big, query, 10);
    expect(quantized[0]?.id).toBe(exact[0]?.id as number);
    expect(quantized[0]?.distance).toBeCloseTo(exact[0]?.distance as number, 5);
    expect(quantized.every((h) => bigIds.includes(h.id))).toBe(true);
  }
});

test("the codes held in memory find the exact nearest chunk first, with its exact distance, and only the deployment's own", () => {
  const vectors = createVectorStore(sqliteDb(services));
  const bigIds = new Set([...stored.keys()].filter((id) => id < Math.min(...[...stored.keys()]) + 3000));
  let agree = 0;
  for (let q = 0; q < 40; q++) {
    const query = q % 2 === 0 ? nudged(stored.get([...bigIds][q * 61] as number) as Float32Array, 0.3) : randomUnit();
    const exact = vectors.exact(big, query, 10);
    const held = vectors.inMemory(big, query, 10);
    expect(held[0]?.id).toBe(exact[0]?.id as number);
    expect(held[0]?.distance).toBeCloseTo(exact[0]?.distance as number, 5);
    expect(held.every((h) => bigIds.has(h.id))).toBe(true);
    agree += held.filter((h) => exact.some((e) => e.id === h.id)).length;
  }
  // recall@10 against exact search
  expect(agree / 400).toBeGreaterThan(0.9);
});

test("held codes follow every write: added, deleted, rolled back, and a rowid reused by another deployment", async () => {
  const db = sqliteDb(services);
  const vectors = createVectorStore(db, { exactMax: 1000 });
  const query = randomUnit();
  vectors.search(big, query, 10); // the codes are held from here on
  // a chunk written after they were read is found at once
  const [added] = await addDocument(big, "doc_added", [query]);
  expect(vectors.search(big, query, 10)[0]).toEqual({ id: added as number, distance: expect.closeTo(0, 5) });
  // a deleted document's chunks are not
  await services.repos.chunkIndex.deleteDocument("doc_added");
  expect(vectors.search(big, query, 10).map((h) => h.id)).not.toContain(added as number);
  // a write rolled back leaves nothing behind …
  await insertDocument(services, big, "doc_rolled_back");
  const writer = createChunkIndexWriter(db);
  let ghost = 0;
  expect(() =>
    db.transaction(() => {
      [ghost] = writer.insert(big, "doc_rolled_back", [
        withTerms({ ord: 0, source: "v", text: "ghost", headingPath: "", tokenCount: 1, textHash: "ghost", vector: query }),
      ]) as [number];
      throw new Error("rolled back");
    })(),
  ).toThrow("rolled back");
  expect(vectors.search(big, query, 10).map((h) => h.id)).not.toContain(ghost);
  // … and the rowid it had, taken by another deployment's chunk, is that deployment's alone
  const [reused] = await addDocument(small, "doc_small_reuse", [query]);
  expect(reused).toBe(ghost);
  expect(vectors.search(big, query, 50).map((h) => h.id)).not.toContain(reused as number);
  expect(vectors.search(small, query, 1)[0]?.id).toBe(reused as number);
  await services.repos.chunkIndex.deleteDocument("doc_small_reuse");
});

test("codes that cannot be read from the table's storage, or held within the budget, are searched with sqlite-vec", () => {
  const db = sqliteDb(services);
  const cache = createCodeCache(db, "no_such_codes", (d) => [`${d}#0`]);
  expect(cache.candidates(big, randomUnit(), 10)).toBeNull();
  // DOCCHAT_VECTOR_CACHE_MB=0
  const vectors = createVectorStore(db, { exactMax: 1000 });
  const query = randomUnit();
  try {
    setCodeBudget(db, 0);
    expect(createCodeCache(db, CODES_TABLE, (d) => [`${d}#0`]).candidates(big, query, 10)).toBeNull();
    expect(vectors.search(big, query, 10)).toEqual(vectors.quantized(big, query, 10));
  } finally {
    setCodeBudget(db, CACHE_BYTES);
  }
});

test("DOCCHAT_VECTOR_CACHE_MB=0 holds no codes: a large deployment is searched by sqlite-vec, with the same results", async () => {
  const dir = tempDir("docchat-vec-budget-");
  const s = await createServices(configFor(dir, { DOCCHAT_EMBEDDER: "none", DOCCHAT_VECTOR_CACHE_MB: "0" }));
  try {
    const { deploymentId, vectors } = await vectorDeployment(s, 50);
    const db = sqliteDb(s);
    expect(createCodeCache(db, CODES_TABLE, (d) => [`${d}#0`]).candidates(deploymentId, randomUnit(), 10)).toBeNull();
    const store = createVectorStore(db, { exactMax: 10 });
    const query = nudged(vectors[7] as Float32Array, 0.1);
    expect(store.search(deploymentId, query, 5)).toEqual(store.quantized(deploymentId, query, 5));
    expect(store.search(deploymentId, query, 5)[0]?.id).toBe(store.exact(deploymentId, query, 1)[0]?.id as number);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a deployment past the exact threshold is searched through the codes, a small one exactly", async () => {
  const vectors = createVectorStore(sqliteDb(services), { exactMax: 1000 });
  const query = randomUnit();
  const viaCodes = vectors.search(big, query, 10);
  expect(viaCodes.map((h) => h.id)).toEqual(vectors.inMemory(big, query, 10).map((h) => h.id));
  expect(vectors.search(small, query, 10)).toEqual(vectors.exact(small, query, 10));
  // the product's index answers the same
  expect((await services.repos.chunkIndex.vectorSearch(big, query, 10))[0]?.id).toBe(vectors.exact(big, query, 10)[0]?.id as number);
});

test("a data dir whose vectors predate the codes gets them when opened, even when a kill -9 interrupts the build", async () => {
  const dir = tempDir("docchat-vec-upgrade-");
  try {
    // a data dir as an older version left it: vectors, no codes
    const s = await createServices(configFor(dir, { DOCCHAT_EMBEDDER: "none" }));
    const { vectors } = await vectorDeployment(s, 2500);
    sqliteDb(s).run(`DROP TABLE ${CODES_TABLE}`);
    sqliteDb(s).run("DELETE FROM index_meta WHERE key LIKE 'vector_codes%'");
    await s.close();

    // a process building the codes in small batches, killed while it works
    const file = join(dir, "docchat.db");
    const child = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const { openDatabaseFile } = await import(${JSON.stringify(join(import.meta.dir, "../../src/store/sqlite/db.ts"))});
         const { buildVectorCodes } = await import(${JSON.stringify(join(import.meta.dir, "../../src/store/sqlite/vector-search.sqlite.ts"))});
         const db = await openDatabaseFile(${JSON.stringify(file)}, { vecDir: ${JSON.stringify(dir)} });
         db.run("PRAGMA synchronous = FULL");
         console.log("started");
         buildVectorCodes(db, { batch: 20 });
         console.log("finished");`,
      ],
      { stdout: "pipe", stderr: "inherit" },
    );
    const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // "started"
    await Bun.sleep(150);
    child.kill("SIGKILL");
    await child.exited;

    const peek = await openDatabaseFile(file, { vecDir: dir, readonly: true });
    const partial = peek.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${CODES_TABLE}`).get()?.n ?? 0;
    peek.close();
    expect(partial).toBeLessThanOrEqual(vectors.length);

    const db = await openDatabase(dir);
    try {
      const rows = db
        .query<{ id: number; embedding: Uint8Array }, []>(`SELECT rowid AS id, embedding FROM ${VEC_TABLE} ORDER BY rowid`)
        .all();
      expect(rows).toHaveLength(vectors.length);
      const code = db.query<{ code: Uint8Array }, [number]>(`SELECT code FROM ${CODES_TABLE} WHERE rowid = ?`);
      for (const r of rows) {
        const v = new Float32Array(r.embedding.buffer.slice(r.embedding.byteOffset, r.embedding.byteOffset + r.embedding.byteLength));
        expect(code.get(r.id)?.code).toEqual(vectorCoder(DIM).encode(v));
      }
      expect(db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${CODES_TABLE}`).get()?.n).toBe(vectors.length);
      expect(db.query<{ value: string }, []>("SELECT value FROM index_meta WHERE key = 'vector_codes'").get()?.value).toBe(CODE_SCHEME);
    } finally {
      closeDatabase(db);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
