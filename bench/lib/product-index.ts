/**
 * A real docchat data directory for benchmarks: the product's services over a temp SQLite file (or a PostgreSQL
 * database, with DOCCHAT_DATABASE_URL in `env`), one account and one deployment, and chunks written through the
 * product's own repositories (documents + chunk index, FTS5 and sqlite-vec rows in one transaction on SQLite), so
 * retrieval runs exactly the code a visitor's question runs.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor, createServices, type Services } from "../../src/app.ts";
import { MIN_IDF_CORPUS } from "../../src/chat/create-chat.ts";
import { calibrationFor } from "../../src/rag/cosine-calibration.ts";
import type { Embedder } from "../../src/rag/embedder.ts";
import type { CosineCalibration } from "../../src/rag/grounding-gate.ts";
import { createRetriever, type Retriever } from "../../src/rag/retrieve.ts";
import type { ChunkIndexStore, NewChunk } from "../../src/store/contract/index.ts";
import { createChunkIndexWriter } from "../../src/store/sqlite/chunk-index.sqlite.ts";
import { markCompleted } from "../../src/store/sqlite/repos/documents.sqlite.ts";
import { createSqliteTermStats } from "../../src/store/sqlite/term-stats.sqlite.ts";
import { withTerms } from "../../test/helpers/analyzed.ts";
import { sqliteDb } from "../../test/helpers/test-sql.ts";

export interface BenchDeployment {
  services: Services;
  deploymentId: string;
  apiKey: string;
  dataDir: string;
  /** restarts the services over the same data (dir or database) with more settings, as a restarted server would */
  reopen(env: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

const servicesOver = (dataDir: string, env: Record<string, string>) =>
  createServices(
    configFor(dataDir, {
      DOCCHAT_EMBEDDER: "none",
      DOCCHAT_RATE_LIMIT_SCALE: "100000",
      DOCCHAT_ACCOUNT_MAX_DOCUMENTS: "10000000",
      DOCCHAT_ACCOUNT_MAX_BYTES: "1000000000000",
      ...env,
    }),
  );

export async function openBenchDeployment(env: Record<string, string> = {}): Promise<BenchDeployment> {
  const dataDir = mkdtempSync(join(tmpdir(), "docchat-bench-"));
  let services = await servicesOver(dataDir, env);
  const account = await services.accounts.create({ email: `bench-${Date.now()}@example.com`, tokens: 1_000_000_000 });
  const { deployment, apiKey } = await services.deployments.create({ accountId: account.id, name: "Bench", kind: "docs", published: true });
  return {
    get services() {
      return services;
    },
    deploymentId: deployment.id,
    apiKey,
    dataDir,
    async reopen(more) {
      await services.close();
      services = await servicesOver(dataDir, { ...env, ...more });
    },
    async close() {
      await services.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface BenchPassage {
  /** becomes the chunk's source (the document name), so hits map back to dataset ids */
  source: string;
  text: string;
  vector?: Float32Array;
}

/**
 * Writes passages as one-chunk documents in batches (each batch's rows one commit, its chunks another, as a bulk
 * load would); creates the vector table when vectors are given.
 */
export async function loadPassages(
  b: BenchDeployment,
  passages: BenchPassage[],
  opts: { dimension?: number; batch?: number } = {},
): Promise<void> {
  const { services, deploymentId } = b;
  if (opts.dimension) await services.repos.chunkIndex.createVectorTable(opts.dimension);
  const sqlite = services.store.engine === "sqlite";
  const writer = sqlite ? createChunkIndexWriter(sqliteDb(services)) : null;
  const batch = opts.batch ?? 2000;
  for (let i = 0; i < passages.length; i += batch) {
    const docs = passages.slice(i, i + batch).map((p) => {
      const bytes = new TextEncoder().encode(p.text);
      const chunk: NewChunk = withTerms({
        ord: 0,
        source: p.source,
        text: p.text,
        headingPath: "",
        tokenCount: Math.ceil(p.text.length / 4),
        textHash: createHash("sha256").update(p.text).digest("hex"),
        vector: p.vector,
      });
      return { id: `doc_${randomBytes(9).toString("base64url")}`, source: p.source, bytes, chunk };
    });
    await services.repos.documents.insertMany(
      docs.map((d) => ({
        id: d.id,
        deploymentId,
        name: d.source,
        kind: "txt",
        contentHash: createHash("sha256").update(d.bytes).digest("hex"),
        bytes: d.bytes,
        parsed: "{}",
        pages: null,
        queue: false,
        replaceOnTrain: false,
      })),
    );
    if (writer) {
      sqliteDb(services)
        .transaction(() => {
          for (const d of docs) {
            writer.insert(deploymentId, d.id, [d.chunk]);
            markCompleted(sqliteDb(services), d.id, 1);
          }
        })
        .immediate();
      continue;
    }
    // PostgreSQL: through the store's contract, a document (its chunk and postings) per transaction, as training writes it
    for (const d of docs) {
      await services.repos.chunkIndex.insert(deploymentId, d.id, [d.chunk]);
      await services.repos.documents.markCompleted(d.id, 1);
    }
  }
  await services.repos.deployments.setTrainingStatus(deploymentId, "completed");
}

/** An embedder answering from precomputed query vectors (the embedding cost is measured elsewhere). */
export function precomputedEmbedder(id: string, dimension: number, vectors: Map<string, Float32Array>): Embedder {
  return {
    id,
    dimension,
    embedDocuments: async (texts) => texts.map((t) => vectors.get(t) ?? new Float32Array(dimension)),
    embedQuery: async (t) => vectors.get(t) ?? new Float32Array(dimension),
  };
}

/** The product retriever over this deployment with an explicit embedder, vector weight and calibration. */
export function benchRetriever(
  b: BenchDeployment,
  opts: {
    embedder: Embedder | null;
    vectorWeight?: number;
    calibration?: CosineCalibration | null;
    candidates?: number;
    minIdfCorpus?: number;
    /** another view of the same index (a benchmark's exact-KNN baseline) */
    index?: ChunkIndexStore;
  },
): Retriever {
  return createRetriever({
    index: opts.index ?? b.services.repos.chunkIndex,
    stats: b.services.store.engine === "sqlite" ? createSqliteTermStats(sqliteDb(b.services)) : b.services.repos.termStats,
    embedder: async () => opts.embedder,
    settings: {
      keywordWeight: 1,
      vectorWeight: opts.vectorWeight ?? b.services.config.vectorWeight,
      candidates: opts.candidates ?? 50,
      rrfK: 60,
      minIdfCorpus: opts.minIdfCorpus ?? MIN_IDF_CORPUS,
      calibration: (id) => (opts.calibration === undefined ? calibrationFor(id) : opts.calibration),
    },
  });
}

/** Pushes the SQuAD articles as documents (title + paragraphs, one TXT each) through the documents service and trains them. */
export async function pushSquadArticles(
  services: Services,
  deploymentId: string,
  articles: { title: string; paragraphs: string[] }[],
): Promise<void> {
  for (const a of articles) {
    const bytes = new TextEncoder().encode(`${a.title.replaceAll("_", " ")}\n\n${a.paragraphs.join("\n\n")}`);
    await services.documents.push({ deploymentId, name: `${a.title}.txt`, bytes, train: true, replace: true }, { waitMs: 0 });
  }
  await services.training.runUntilIdle();
}
