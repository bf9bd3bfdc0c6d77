/**
 * Embeddings from an OpenAI-compatible server: Ollama, vLLM, llama.cpp's `llama-server --embedding`, TEI,
 * LocalAI, or a hosted API. `POST {base}/embeddings` with `{model, input: [...]}`, in batches, a bounded number
 * in flight, each with a deadline and retries (model-server.ts). The dimension is read from the server at
 * start; when the server is down then, the dimension the index recorded for the same model is used, so a
 * restart during an outage still serves keyword answers and resumes training when the server is back.
 */
import type { Embedder } from "../embedder.ts";
import {
  createModelServer,
  type ModelServer,
  type ModelServerOptions,
  ModelServerRequestError,
  type PostOptions,
  QUERY_TIMEOUT_MS,
} from "../remote/model-server.ts";
import { l2Normalize } from "./l2-normalise.ts";
import type { ModelPrefixes } from "./model-prefixes.ts";

export interface OpenAiEmbedderOptions extends Omit<ModelServerOptions, "url"> {
  url: string;
  model: string;
  batchSize: number;
  prefixes: ModelPrefixes;
  /** dimension the index recorded for this model; used when the server can't be asked at start */
  knownDimension?: number;
}

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: number[] }[];
}

export const openAiEmbedderId = (model: string) => `openai:${model}`;

export interface RemoteEmbedder extends Embedder {
  readonly remote: { url: string; model: string; prefixes: ModelPrefixes; batchSize: number };
  /** true when the dimension came from the index because the server was down at start */
  readonly dimensionFromIndex: boolean;
}

async function embedBatch(server: ModelServer, model: string, input: string[], post: PostOptions): Promise<Float32Array[]> {
  const res = await server.post<EmbeddingsResponse>("/embeddings", { model, input }, post);
  const data = Array.isArray(res?.data) ? res.data : [];
  if (data.length !== input.length)
    throw new ModelServerRequestError(`the embeddings server returned ${data.length} vectors for ${input.length} texts`, 200, "");
  // Servers may answer out of order; `index` is authoritative when present.
  const ordered = data.every((d) => typeof d.index === "number") ? [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)) : data;
  return ordered.map((d) => {
    if (!Array.isArray(d.embedding) || d.embedding.length === 0)
      throw new ModelServerRequestError("the embeddings server returned an item without an embedding", 200, "");
    return l2Normalize(Float32Array.from(d.embedding));
  });
}

export async function createOpenAiEmbedder(opts: OpenAiEmbedderOptions): Promise<RemoteEmbedder> {
  if (!opts.model) throw new Error("DOCCHAT_EMBEDDINGS_MODEL is required with DOCCHAT_EMBEDDINGS_URL (the model name the server knows)");
  const server = createModelServer(opts);
  let dimension: number;
  let dimensionFromIndex = false;
  try {
    const [probe] = await server
      .post<EmbeddingsResponse>(
        "/embeddings",
        { model: opts.model, input: ["dimension probe"] },
        { retries: opts.knownDimension ? 0 : opts.retries },
      )
      .then((r) => (r.data ?? []).map((d) => d.embedding ?? []));
    dimension = probe?.length ?? 0;
    if (!dimension) throw new ModelServerRequestError("the embeddings server returned no vector for the dimension probe", 200, "");
  } catch (e) {
    if (!opts.knownDimension || e instanceof ModelServerRequestError) throw e;
    dimension = opts.knownDimension;
    dimensionFromIndex = true;
  }
  // Never send an empty string: several servers reject it, and it carries nothing to embed.
  const nonEmpty = (t: string) => (t.trim() === "" ? "." : t);

  // A visitor waits on a question's embedding: it goes before queued training batches, gets a short deadline and
  // at most one retry, after which the question is answered from keyword retrieval.
  const forQuery: PostOptions = {
    priority: "urgent",
    retries: Math.min(1, opts.retries),
    timeoutMs: Math.min(opts.timeoutMs, QUERY_TIMEOUT_MS),
  };

  async function embed(texts: string[], prefix: string, post: PostOptions = {}): Promise<Float32Array[]> {
    const batches: string[][] = [];
    for (let i = 0; i < texts.length; i += opts.batchSize)
      batches.push(texts.slice(i, i + opts.batchSize).map((t) => prefix + nonEmpty(t)));
    const results = await Promise.all(batches.map((b) => embedBatch(server, opts.model, b, post)));
    const vectors = results.flat();
    for (const v of vectors) {
      if (v.length !== dimension) {
        throw new ModelServerRequestError(
          `the embeddings server now returns ${v.length} dimensions, the index holds ${dimension}: run "docchat reindex"`,
          200,
          "",
        );
      }
    }
    return vectors;
  }

  return {
    id: openAiEmbedderId(opts.model),
    dimension,
    dimensionFromIndex,
    remote: { url: server.url, model: opts.model, prefixes: opts.prefixes, batchSize: opts.batchSize },
    embedDocuments: (texts) => (texts.length === 0 ? Promise.resolve([]) : embed(texts, opts.prefixes.document)),
    async embedQuery(text) {
      const [v] = await embed([text], opts.prefixes.query, forQuery);
      if (!v) throw new Error("the embeddings server returned no vector");
      return v;
    },
  };
}
