/**
 * The chunk index and term statistics behind one async face, on either engine, for the contract suite and the
 * benchmarks that compare them: SQLite (the product's services over a temp data dir: documents, FTS5 per
 * deployment, sqlite-vec) and PostgreSQL (a throwaway cluster from ./postgres.ts, migrated, pgvector).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { configFor, createServices } from "../../src/app.ts";
import type { ChunkIndex } from "../../src/rag/retrieve.ts";
import type { ChunkIndexStore, IndexedChunk, NewChunk, TermStatsStore } from "../../src/store/contract/index.ts";
import { createPgChunkIndex, createPgTermStats, type PgChunkIndex } from "../../src/store/postgres/chunk-index.pg.ts";
import { migratePg } from "../../src/store/postgres/migrate.pg.ts";
import { createSqliteTermStats } from "../../src/store/sqlite/term-stats.sqlite.ts";
import { type PgCluster, startPostgres } from "./postgres.ts";
import { sqliteDb } from "./test-sql.ts";

export type Engine = "sqlite" | "postgres";
export const ENGINES: Engine[] = ["sqlite", "postgres"];

export interface IndexDriver {
  engine: Engine;
  /** what the retriever reads */
  index: ChunkIndex;
  stats: TermStatsStore;
  /** a new, empty deployment */
  deployment(): Promise<string>;
  /** a document with these chunks, indexed in one transaction; returns its id and the chunk ids in order */
  addDocument(deploymentId: string, chunks: NewChunk[], name?: string): Promise<{ documentId: string; ids: number[] }>;
  deleteDocument(documentId: string): Promise<void>;
  createVectorTable(dimension: number | null): Promise<void>;
  counts(documentId: string): Promise<{ chunks: number; fts: number; vec: number }>;
  meta(key: string): Promise<string | null>;
  setMeta(key: string, value: string): Promise<void>;
  cacheVector(embedderId: string, textHash: string, v: Float32Array): Promise<void>;
  cachedVector(embedderId: string, textHash: string): Promise<Float32Array | null>;
  allChunks(): Promise<IndexedChunk[]>;
  /** PostgreSQL only: the exact (unindexed) nearest neighbours, for recall */
  exactVectorSearch?(deploymentId: string, query: Float32Array, k: number): Promise<{ id: number; distance: number }[]>;
  close(): Promise<void>;
}

/** The driver calls that go straight to the store's chunk index. */
const through = (index: ChunkIndexStore) => ({
  deleteDocument: (d: string) => index.deleteDocument(d),
  createVectorTable: (d: number | null) => index.createVectorTable(d),
  counts: (d: string) => index.counts(d),
  meta: (k: string) => index.meta(k),
  setMeta: (k: string, v: string) => index.setMeta(k, v),
  cacheVector: (e: string, h: string, v: Float32Array) => index.cacheVector(e, h, v),
  cachedVector: (e: string, h: string) => index.cachedVector(e, h),
  allChunks: () => index.allChunks(),
});

const newId = (prefix: string) => `${prefix}_${randomBytes(9).toString("base64url")}`;

export async function openSqliteDriver(): Promise<IndexDriver> {
  const dataDir = mkdtempSync(join(tmpdir(), "docchat-index-"));
  const services = await createServices(configFor(dataDir, { DOCCHAT_EMBEDDER: "none" }));
  const account = await services.accounts.create({ email: `${newId("idx")}@example.com`, tokens: 1_000_000 });
  const repo = services.repos.chunkIndex;
  return {
    engine: "sqlite",
    index: repo,
    stats: createSqliteTermStats(sqliteDb(services), { cacheMs: 0 }),
    async deployment() {
      return (await services.deployments.create({ accountId: account.id, name: "Index", kind: "docs", published: true })).deployment.id;
    },
    async addDocument(deploymentId, chunks, name = "doc.txt") {
      const documentId = newId("doc");
      await services.repos.documents.insert({
        id: documentId,
        deploymentId,
        name,
        kind: "txt",
        contentHash: documentId,
        bytes: new TextEncoder().encode(chunks.map((c) => c.text).join("\n")),
        parsed: "{}",
        pages: null,
        queue: false,
        replaceOnTrain: false,
      });
      return { documentId, ids: await repo.insert(deploymentId, documentId, chunks) };
    },
    ...through(repo),
    async close() {
      await services.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A deployment row (with an owner account) on PostgreSQL, for tests that index into it; returns its id. */
export async function pgDeployment(sql: SQL, id = newId("dep")): Promise<string> {
  const at = Date.now();
  const [account] =
    (await sql`INSERT INTO accounts (email, created_at) VALUES (${`${newId("owner")}@example.com`}, ${at}) RETURNING id`) as {
      id: string;
    }[];
  await sql`INSERT INTO deployments (id, account_id, name, published, created_at, updated_at)
    VALUES (${id}, ${account?.id}, 'Index', 1, ${at}, ${at}) ON CONFLICT (id) DO NOTHING`;
  return id;
}

/** A completed document row on PostgreSQL (its deployment created when missing), so chunks can reference it. */
export async function pgDocument(sql: SQL, deploymentId: string, documentId: string, name = "doc.txt"): Promise<void> {
  if (((await sql`SELECT 1 FROM deployments WHERE id = ${deploymentId}`) as unknown[]).length === 0) await pgDeployment(sql, deploymentId);
  const at = Date.now();
  await sql`INSERT INTO documents (id, deployment_id, name, kind, content_hash, size, status, created_at, updated_at)
    VALUES (${documentId}, ${deploymentId}, ${name}, 'txt', ${documentId}, 0, 'completed', ${at}, ${at}) ON CONFLICT (id) DO NOTHING`;
}

/** On a cluster of its own unless one is given (then the caller stops it). */
export async function openPostgresDriver(
  opts: { cluster?: PgCluster; fast?: boolean } = {},
): Promise<IndexDriver & { pg: PgChunkIndex; sql: SQL }> {
  const cluster = opts.cluster ?? (await startPostgres({ fast: opts.fast }));
  const sql = new SQL(cluster.url, { max: 4 });
  await migratePg(sql);
  const pg = await createPgChunkIndex(sql);
  return {
    engine: "postgres",
    pg,
    sql,
    index: pg,
    stats: createPgTermStats(sql),
    deployment: () => pgDeployment(sql),
    async addDocument(deploymentId, chunks, name = "doc.txt") {
      const documentId = newId("doc");
      return sql.begin(async (tx) => {
        await pgDocument(tx, deploymentId, documentId, name);
        return { documentId, ids: await pg.insert(deploymentId, documentId, chunks, tx) };
      });
    },
    ...through(pg),
    exactVectorSearch: (d, q, k) => pg.exactVectorSearch(d, q, k),
    async close() {
      await sql.close();
      if (!opts.cluster) await cluster.stop();
    },
  };
}

export const openDriver = (engine: Engine): Promise<IndexDriver> => (engine === "sqlite" ? openSqliteDriver() : openPostgresDriver());
