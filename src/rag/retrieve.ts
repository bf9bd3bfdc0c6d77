import type { Logger } from "../log.ts";
import type { ChunkIndexStore, TermStatsStore } from "../store/contract/index.ts";
import { isQuestion } from "./answer-type.ts";
import type { Embedder } from "./embedder.ts";
import { blendRelevance, type CosineCalibration, passagesAnswerability, type TermStats, termWeights } from "./grounding-gate.ts";
import { searchTerms } from "./keyword-query.ts";
import { analyzeForSearch } from "./query-analysis.ts";
import { fuseByRank } from "./rank-fusion.ts";
import { rerankHits } from "./rerank/rerank-hits.ts";
import type { Reranker } from "./rerank/reranker.ts";
import type { JudgedBy, Retrieval, RetrievalHit, RetrievalMode } from "./retrieval.types.ts";
import { stem } from "./terms.ts";

/** Which words keyword search gets (see searchTerms): measured on SciFact and at 100k chunks. */
const SEARCH_TERMS = { maxTerms: 12, maxRows: 10_000, minTerms: 3 };
/**
 * A question is judged over this many fused candidates, which are then ordered by how well one of their sentences
 * answers it: BM25 favours long passages that repeat the question's words, the answering sentence is often in a
 * shorter one a few ranks down — or, in a table whose every row repeats the question's words ("Totals" in each row),
 * many ranks down. Measured on the dev set (docchat eval): 20 → 30 found the NICS table's totals row (BM25 rank 29);
 * once a passage's stop words counted in its length it was rank 31, so 40 leaves it room.
 */
const QUESTION_POOL = 40;

/**
 * Chunks are capped at ingest (chunk.ts), but a data dir indexed before the cap may hold a chunk of megabytes:
 * a hit is read only up to this many characters, so no question scores, quotes or sends more than that per hit.
 */
export const PASSAGE_MAX_CHARS = 6000;
const clampPassage = (text: string) => {
  if (text.length <= PASSAGE_MAX_CHARS) return text;
  const space = text.lastIndexOf(" ", PASSAGE_MAX_CHARS);
  return text.slice(0, space > PASSAGE_MAX_CHARS / 2 ? space : PASSAGE_MAX_CHARS);
};

/** What retrieval reads from the store's chunk index. */
export type ChunkIndex = Pick<ChunkIndexStore, "keywordSearch" | "vectorSearch" | "getChunks" | "hasVectors">;

/**
 * Reads a question's statistics from the deployment once (document frequencies of its words and their English
 * stems, and N), for benchmarks that weigh English questions; retrieve() analyzes questions with analyzeForSearch.
 */
export async function statsSnapshot(stats: TermStatsStore, deploymentId: string, terms: string[]): Promise<TermStats> {
  const [df, n] = await Promise.all([
    stats.documentFrequencies(deploymentId, [...new Set([...terms, ...terms.map((t) => stem(t))])]),
    stats.totalChunks(deploymentId),
  ]);
  return { documentFrequencies: () => df, totalChunks: () => n };
}

export interface RetrievalSettings {
  /** RRF weight of the BM25 ranking */
  keywordWeight: number;
  /** RRF weight of the vector ranking (0 = keyword only) */
  vectorWeight: number;
  /** candidates taken from each ranking before fusion */
  candidates: number;
  rrfK: number;
  /** IDF smoothing: the gate treats a corpus as at least this many chunks (see termWeights) */
  minIdfCorpus: number;
  /** cosine → relevance mapping for the active embedder; null = coverage only */
  calibration: (embedderId: string) => CosineCalibration | null;
  /** fused candidates a question is judged over (QUESTION_POOL when absent) */
  questionPool?: number;
  /** fused candidates handed to the reranker, when one is active */
  rerankCandidates?: number;
}

export interface RetrieveInput {
  deploymentId: string;
  query: string;
  topK: number;
  mode?: RetrievalMode;
  /** words an answering sentence must mention besides the question's focus (what an elliptic follow-up changed) */
  mustMention?: string[];
  /** the deployment's pinned languages (ISO 639-1); none: the languages detected in its documents */
  languages?: readonly string[];
}

/**
 * Hybrid retrieval over one deployment's partition: BM25 over its keyword index and vector KNN fused by
 * weighted RRF, then every hit scored for grounding. Keyword-only when no embedder is active.
 */
export function createRetriever(deps: {
  index: ChunkIndex;
  stats: TermStatsStore;
  embedder: () => Promise<Embedder | null>;
  /** optional: reorders the fused candidates and decides their relevance (rerank/) */
  reranker?: () => Promise<Reranker | null>;
  settings: RetrievalSettings;
  log?: Logger;
}) {
  const { index, settings } = deps;

  async function vectorRanking(
    deploymentId: string,
    query: string,
  ): Promise<{ ids: number[]; cosine: Map<number, number>; embedderId: string } | null> {
    try {
      const embedder = await deps.embedder();
      if (!embedder || !index.hasVectors()) return null;
      const v = await embedder.embedQuery(query);
      const rows = await index.vectorSearch(deploymentId, v, settings.candidates);
      return { ids: rows.map((r) => r.id), cosine: new Map(rows.map((r) => [r.id, 1 - r.distance])), embedderId: embedder.id };
    } catch (e) {
      // A failed embedding degrades the answer to keyword retrieval instead of failing the visitor.
      deps.log?.warn("query embedding failed; keyword retrieval only", { error: String((e as Error).message ?? e) });
      return null;
    }
  }

  async function activeReranker(): Promise<Reranker | null> {
    try {
      return (await deps.reranker?.()) ?? null;
    } catch (e) {
      deps.log?.warn("reranker unavailable; judged without it", { error: String((e as Error).message ?? e) });
      return null;
    }
  }

  return {
    async retrieve(input: RetrieveInput): Promise<Retrieval> {
      const mode = input.mode ?? "hybrid";
      const pool = isQuestion(input.query) ? Math.max(input.topK, settings.questionPool ?? QUESTION_POOL) : input.topK;
      // the query's embedding and vector search run while the keyword side does (it never rejects: see vectorRanking)
      const vectorSide =
        mode === "keyword" || (mode === "hybrid" && settings.vectorWeight <= 0) ? null : vectorRanking(input.deploymentId, input.query);
      const q = await analyzeForSearch(deps.stats, input.deploymentId, input.query, { languages: input.languages });
      const { stats, words: terms } = q;
      const searched = mode === "vector" ? [] : searchTerms(q.forms, stats.documentFrequencies(input.deploymentId, q.forms), SEARCH_TERMS);
      const keyword =
        searched.length > 0 ? (await index.keywordSearch(input.deploymentId, searched, settings.candidates)).map((r) => r.id) : [];
      const vector = vectorSide ? await vectorSide : null;
      const reranker = await activeReranker();
      const fused = fuseByRank([
        { ids: keyword, weight: mode === "vector" ? 0 : settings.keywordWeight },
        { ids: vector?.ids ?? [], weight: mode === "keyword" ? 0 : mode === "vector" ? 1 : settings.vectorWeight },
      ]).slice(0, reranker ? Math.max(input.topK, settings.rerankCandidates ?? input.topK) : pool);
      const rows = new Map((await index.getChunks(fused.map((f) => f.id))).map((r) => [r.id, r]));
      const weights = termWeights(input.deploymentId, terms, stats, settings.minIdfCorpus, q.langs);
      const calibration = vector ? settings.calibration(vector.embedderId) : null;
      const hits: RetrievalHit[] = [];
      for (const f of fused) {
        const row = rows.get(f.id);
        // a search is scoped to the deployment; a row of another one is never an answer here, whatever returned it
        if (!row || row.deploymentId !== input.deploymentId) continue;
        const cosine = vector?.cosine.get(f.id);
        hits.push({
          chunkId: row.id,
          documentId: row.documentId,
          text: clampPassage(row.text),
          source: row.source,
          headingPath: row.headingPath,
          pageStart: row.pageStart,
          pageEnd: row.pageEnd,
          rowStart: row.rowStart,
          rowEnd: row.rowEnd,
          fused: f.score,
          relevance: 0,
          ...(cosine === undefined ? {} : { cosine }),
        });
      }
      // The rerank step (after fusion, before the gate): the reranker reorders the candidates and its score
      // becomes what the gate judges. If it fails (or there is none), the fused order stands and the kept hits
      // are judged by coverage (and cosine): only those, since a reranker's score replaces the judgement anyway.
      const reranked = reranker ? await rerankHits(reranker, input.query, hits, input.topK, deps.log) : null;
      // the passages are judged together, so a document card speaks for its document (see scoreUnits)
      const judged = reranked ? [] : passagesAnswerability(weights, input.query, hits, input.mustMention);
      const kept =
        reranked ??
        hits
          .map((h, i) => ({ ...h, relevance: blendRelevance(judged[i] ?? 0, h.cosine, calibration) }))
          // stable: equally relevant passages keep their fused order
          .sort((a, b) => (pool > input.topK ? b.relevance - a.relevance : 0))
          .slice(0, input.topK);
      const judgedBy: JudgedBy = reranked ? "reranker" : calibration && calibration.weight > 0 ? "cosine" : "coverage";
      const relevance = kept.reduce((m, h) => Math.max(m, h.relevance), 0);
      return {
        query: input.query,
        hits: kept,
        relevance,
        weights,
        used: { keyword: searched.length > 0, vector: vector !== null, reranker: reranked !== null },
        judgedBy,
      };
    },
  };
}

export type Retriever = ReturnType<typeof createRetriever>;
