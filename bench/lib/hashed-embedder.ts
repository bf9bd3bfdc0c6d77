/**
 * A deterministic bag-of-words embedder for benchmarks that need real (if weak) vector structure without a
 * model: stemmed content words, feature-hashed with a sign into `dimension` buckets, log term frequency,
 * L2-normalised. Texts that share words are close, which is what HNSW relies on (random vectors are its worst
 * case). It says nothing about retrieval quality with a real embedding model.
 */
import type { Embedder } from "../../src/rag/embedder.ts";
import { l2Normalize } from "../../src/rag/embedders/l2-normalise.ts";
import { queryTerms, stem } from "../../src/rag/terms.ts";

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function createHashedEmbedder(dimension = 256): Embedder {
  const embed = (text: string) => {
    const tf = new Map<string, number>();
    for (const t of queryTerms(text, 10_000)) tf.set(stem(t), (tf.get(stem(t)) ?? 0) + 1);
    const v = new Float32Array(dimension);
    for (const [t, n] of tf) {
      const h = hash(t);
      v[h % dimension] = (v[h % dimension] ?? 0) + ((h >>> 31) & 1 ? -1 : 1) * (1 + Math.log(n));
    }
    return l2Normalize(v);
  };
  return {
    id: `hashed-bow@${dimension}`,
    dimension,
    embedDocuments: async (texts) => texts.map(embed),
    embedQuery: async (text) => embed(text),
  };
}
