import type { CosineCalibration } from "./grounding-gate.ts";

/**
 * Per-embedder mapping of cosine similarity onto the gate's 0..1 scale, measured by bench/retrieval.bench.ts
 * on SQuAD 2.0 (answerable vs out-of-corpus questions). An embedder not listed here leaves the gate on term
 * coverage alone: an uncalibrated cosine would move the threshold unpredictably.
 */
const CALIBRATIONS: Record<string, CosineCalibration> = {
  // SQuAD 2.0, hybrid at vector weight 0.25: held-out refusal F1 0.924 → 0.934, balanced accuracy 0.877 → 0.902.
  // word-vectors is not listed: its cosines crowd into 0.91–0.95 and blending did not help.
  "use-lite": { low: 0.317, high: 0.661, weight: 0.25 },
};

export function calibrationFor(embedderId: string): CosineCalibration | null {
  return CALIBRATIONS[embedderId] ?? null;
}
