import type { Logger } from "../../log.ts";
import type { RetrievalHit } from "../retrieval.types.ts";
import type { Reranker } from "./reranker.ts";

/** What the reranker sees of a passage: where it sits and what it says, like the keyword gate does. */
const passageText = (h: RetrievalHit) => (h.headingPath ? `${h.source} — ${h.headingPath}\n${h.text}` : `${h.source}\n${h.text}`);

/**
 * The rerank step of retrieval: the reranker scores the fused candidates, they are reordered by its score, and
 * the best `topK` are kept with `rerankScore` set; a hit's `relevance` becomes its rerank score, since that is
 * what the gate judges while a reranker is active. Returns null when the reranker failed: the caller keeps the
 * fused order and the coverage/cosine judgement, and the visitor still gets an answer.
 */
export async function rerankHits(
  reranker: Reranker,
  query: string,
  hits: RetrievalHit[],
  topK: number,
  log?: Logger,
): Promise<RetrievalHit[] | null> {
  if (hits.length === 0) return [];
  try {
    const scores = await reranker.rerank(query, hits.map(passageText));
    return hits
      .map((h, i) => ({ ...h, rerankScore: scores[i] ?? 0, relevance: scores[i] ?? 0 }))
      .sort((a, b) => b.rerankScore - a.rerankScore || b.fused - a.fused)
      .slice(0, topK);
  } catch (e) {
    log?.warn("reranking failed; judged without the reranker", { reranker: reranker.id, error: String((e as Error).message ?? e) });
    return null;
  }
}
