/**
 * Reranking by a server. Two wire formats exist and both are spoken:
 * - `POST {base}/rerank {model, query, documents, top_n}` → `{results: [{index, relevance_score}]}`: vLLM,
 *   llama.cpp's `llama-server --reranking`, Jina and Cohere-style APIs;
 * - TEI's native `POST {base}/rerank {query, texts}` → `[{index, score}]`.
 * `auto` starts with the first and switches to TEI's for good when the server answers 422/400 asking for `texts`.
 */
import { createModelServer, type ModelServerOptions, ModelServerRequestError, QUERY_TIMEOUT_MS } from "../remote/model-server.ts";
import { type Reranker, toProbabilities } from "./reranker.ts";

export type RerankFormat = "auto" | "documents" | "tei";

export interface HttpRerankerOptions extends Omit<ModelServerOptions, "url"> {
  url: string;
  /** may be empty for TEI, which serves one model */
  model: string;
  format?: RerankFormat;
  /** what the server's scores are (see toProbabilities); auto when absent */
  scores?: "auto" | "probability" | "logit";
}

type Scored = { index?: number; relevance_score?: number; score?: number };

function readScores(body: unknown, n: number, kind: HttpRerankerOptions["scores"]): number[] {
  const items: Scored[] | undefined = Array.isArray(body)
    ? body
    : Array.isArray((body as { results?: unknown })?.results)
      ? (body as { results: Scored[] }).results
      : undefined;
  if (!items) throw new ModelServerRequestError("the rerank server answered without results", 200, JSON.stringify(body).slice(0, 300));
  const raw = new Array<number>(n).fill(Number.NEGATIVE_INFINITY);
  for (const it of items) {
    const score = it.relevance_score ?? it.score;
    if (typeof it.index !== "number" || it.index < 0 || it.index >= n || typeof score !== "number" || !Number.isFinite(score)) {
      throw new ModelServerRequestError(
        "the rerank server answered an item without a valid index and score",
        200,
        JSON.stringify(it).slice(0, 300),
      );
    }
    raw[it.index] = score;
  }
  if (raw.some((s) => s === Number.NEGATIVE_INFINITY))
    throw new ModelServerRequestError("the rerank server left documents unscored", 200, "");
  return toProbabilities(raw, kind);
}

export function createHttpReranker(opts: HttpRerankerOptions): Reranker {
  const server = createModelServer(opts);
  let format: Exclude<RerankFormat, "auto"> = opts.format === "tei" ? "tei" : "documents";
  const canSwitch = (opts.format ?? "auto") === "auto";

  async function call(query: string, documents: string[], signal?: AbortSignal): Promise<number[]> {
    const body =
      format === "tei"
        ? { query, texts: documents, raw_scores: false, truncate: true }
        : { ...(opts.model ? { model: opts.model } : {}), query, documents, top_n: documents.length };
    // A visitor waits: rerank calls go first and are cut short; a failure leaves the judgement to term coverage.
    const post = { signal, priority: "urgent" as const, timeoutMs: Math.min(opts.timeoutMs, QUERY_TIMEOUT_MS) };
    return readScores(await server.post("/rerank", body, post), documents.length, opts.scores);
  }

  return {
    id: `http:${opts.model || "rerank"}`,
    async rerank(query, documents, o = {}) {
      if (documents.length === 0) return [];
      try {
        return await call(query, documents, o.signal);
      } catch (e) {
        const asksForTexts = e instanceof ModelServerRequestError && (e.status === 422 || e.status === 400) && /texts/.test(e.body);
        if (!canSwitch || format === "tei" || !asksForTexts) throw e;
        format = "tei";
        return call(query, documents, o.signal);
      }
    },
  };
}
