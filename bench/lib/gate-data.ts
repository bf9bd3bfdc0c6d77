/**
 * Grounding-gate measurements over SQuAD 2.0: the 8 articles are pushed through the product's documents service
 * (parse → chunk → embed → index, exactly as an upload), then every question is retrieved with the product's
 * retriever. Per question the best term coverage and the hits' cosines are kept, so thresholds and cosine
 * calibrations can be swept afterwards without retrieving again.
 */
import type { Embedder } from "../../src/rag/embedder.ts";
import { benchRetriever, openBenchDeployment, pushSquadArticles } from "./product-index.ts";
import type { SquadData, SquadQuestion } from "./squad.dataset.ts";

export interface GateRecord {
  q: SquadQuestion;
  /** per hit (top-k): term coverage and cosine (when vectors were searched) */
  hits: { coverage: number; cosine?: number }[];
  /** a gold answer string appears in a retrieved passage */
  answerRetrieved: boolean;
}

export interface GateRun {
  embedder: string;
  /** the gate's IDF smoothing used for this run */
  minIdfCorpus: number;
  chunks: number;
  records: GateRecord[];
  msPerQuestion: number;
}

/** One pushed deployment, retrieved once per IDF smoothing value. */
export async function collectGateRecords(
  data: SquadData,
  embedderEnv: string,
  opts: { topK: number; minIdfCorpus: number[]; log?: (m: unknown) => void },
): Promise<GateRun[]> {
  const b = await openBenchDeployment({ DOCCHAT_EMBEDDER: embedderEnv });
  try {
    const { services, deploymentId } = b;
    const embedder: Embedder | null = await services.embedder();
    await pushSquadArticles(services, deploymentId, data.articles);
    const chunks = (await services.repos.documents.list(deploymentId)).reduce((n, d) => n + d.chunkCount, 0);
    const runs: GateRun[] = [];
    for (const minIdfCorpus of opts.minIdfCorpus) {
      const retriever = benchRetriever(b, { embedder, calibration: null, minIdfCorpus });
      const records: GateRecord[] = [];
      const t0 = performance.now();
      for (const q of data.questions) {
        const r = await retriever.retrieve({ deploymentId, query: q.question, topK: opts.topK });
        const lower = r.hits.map((h) => h.text.toLowerCase());
        records.push({
          q,
          hits: r.hits.map((h) => ({ coverage: h.relevance, ...(h.cosine === undefined ? {} : { cosine: h.cosine }) })),
          answerRetrieved: q.answers.some((a) => lower.some((t) => t.includes(a.toLowerCase()))),
        });
      }
      const msPerQuestion = (performance.now() - t0) / data.questions.length;
      opts.log?.({ embedder: embedder?.id ?? "none", minIdfCorpus, chunks, msPerQuestion });
      runs.push({ embedder: embedder?.id ?? "none", minIdfCorpus, chunks, records, msPerQuestion });
    }
    return runs;
  } finally {
    await b.close();
  }
}
