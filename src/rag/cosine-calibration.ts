import type { CosineCalibration } from "./grounding-gate.ts";

/**
 * Per-embedder mapping of cosine similarity onto the gate's 0..1 scale, measured by bench/retrieval.bench.ts
 * on SQuAD 2.0 (answerable vs out-of-corpus questions). An embedder not listed here leaves the gate on term
 * coverage alone: an uncalibrated cosine would move the threshold unpredictably.
 */
const CALIBRATIONS: Record<string, CosineCalibration> = {
  // Empty since the npm embedders were removed (use-lite had { low: 0.317, high: 0.661, weight: 0.25 }). A real
  // model is calibrated by running bench/retrieval.bench.ts with it; until then it ranks but the gate ignores it.
};

export function calibrationFor(embedderId: string): CosineCalibration | null {
  return CALIBRATIONS[embedderId] ?? null;
}
