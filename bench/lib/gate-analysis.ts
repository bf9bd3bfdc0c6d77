/**
 * Turns gate records into refusal metrics: threshold sweeps for term coverage alone and, with vectors, a small grid
 * of cosine calibrations. Choices are made on one half of the questions (even positions) and reported on the
 * other half (odd positions), so the published F1 is not the number the threshold was tuned on.
 */
import { blendRelevance, type CosineCalibration } from "../../src/rag/grounding-gate.ts";
import type { GateRecord } from "./gate-data.ts";
import { bestBalanced, type GatePoint, type GateSample, gateAt, sweep } from "./gate-sweep.ts";
import { percentile } from "./percentiles.ts";

export interface GateChoice {
  label: string;
  calibration: CosineCalibration | null;
  threshold: number;
  tuned: GatePoint;
  heldOut: GatePoint;
  all: GatePoint;
}

export function samplesFor(records: GateRecord[], cal: CosineCalibration | null): GateSample[] {
  return records.map((r) => ({
    kind: r.q.kind,
    relevance: r.hits.reduce((m, h) => Math.max(m, blendRelevance(h.coverage, h.cosine, cal)), 0),
  }));
}

const half = <T>(xs: T[], parity: 0 | 1) => xs.filter((_, i) => i % 2 === parity);

export function choose(records: GateRecord[], cal: CosineCalibration | null, label: string): GateChoice {
  const samples = samplesFor(records, cal);
  const tuned = bestBalanced(sweep(half(samples, 0)));
  return {
    label,
    calibration: cal,
    threshold: tuned.threshold,
    tuned,
    heldOut: gateAt(half(samples, 1), tuned.threshold),
    all: gateAt(samples, tuned.threshold),
  };
}

/** Cosine calibrations to try, from the tuning half's own distributions of best-hit cosine. */
export function calibrationGrid(records: GateRecord[]): CosineCalibration[] {
  const tune = half(records, 0);
  const best = (r: GateRecord) => r.hits.reduce((m, h) => Math.max(m, h.cosine ?? -1), -1);
  const ooc = tune.filter((r) => r.q.kind === "out-of-corpus").map(best);
  const ans = tune.filter((r) => r.q.kind === "answerable").map(best);
  const lows = [25, 50, 75, 90].map((p) => percentile(ooc, p));
  const highs = [50, 75, 90].map((p) => percentile(ans, p));
  const grid: CosineCalibration[] = [];
  for (const low of lows)
    for (const high of highs)
      if (high > low + 0.02) for (const weight of [0.25, 0.5, 0.75]) grid.push({ low: round(low), high: round(high), weight });
  return grid;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export function bestBlend(records: GateRecord[]): GateChoice | null {
  if (!records.some((r) => r.hits.some((h) => h.cosine !== undefined))) return null;
  let best: GateChoice | null = null;
  for (const cal of calibrationGrid(records)) {
    const c = choose(records, cal, `coverage + cosine (low ${cal.low}, high ${cal.high}, weight ${cal.weight})`);
    if (!best || c.tuned.balanced > best.tuned.balanced) best = c;
  }
  return best;
}
