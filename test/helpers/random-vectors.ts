/** Seeded random unit vectors for vector-search tests: the same vectors on every run. */
export function randomVectors(dimension: number, seed: number) {
  let s = seed >>> 0;
  const random = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
  const unit = (v: Float32Array) => v.map((x) => x / Math.hypot(...v));
  return {
    random,
    /** a random vector of length 1 */
    randomUnit: () => unit(Float32Array.from({ length: dimension }, random)),
    /** `v` moved a little (`by` per coordinate at most half), length 1 again */
    nudged: (v: Float32Array, by: number) => unit(v.map((x) => x + by * random())),
  };
}
