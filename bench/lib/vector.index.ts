/** Exact (brute-force) cosine search over unit vectors: the reference any ANN index would approximate. */
export interface VectorIndex {
  search(query: Float32Array, limit: number): string[];
}

export function createVectorIndex(ids: string[], vectors: Float32Array[]): VectorIndex {
  const dim = vectors[0]?.length ?? 0;
  // One contiguous matrix: far faster to scan than an array of small typed arrays.
  const matrix = new Float32Array(ids.length * dim);
  vectors.forEach((v, i) => {
    matrix.set(v, i * dim);
  });
  return {
    search(query, limit) {
      const scores = new Float32Array(ids.length);
      for (let i = 0; i < ids.length; i++) {
        let dot = 0;
        const base = i * dim;
        for (let j = 0; j < dim; j++) dot += (matrix[base + j] ?? 0) * (query[j] ?? 0);
        scores[i] = dot;
      }
      const order = Array.from(scores.keys()).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0));
      return order.slice(0, limit).map((i) => ids[i] ?? "");
    },
  };
}
