import { describe, expect, test } from "bun:test";
import { fuseByRank } from "../../src/rag/rank-fusion.ts";

describe("weighted reciprocal rank fusion", () => {
  test("a passage ranked well by both lists beats one ranked first by only one", () => {
    const fused = fuseByRank([
      { ids: [1, 2, 3], weight: 1 },
      { ids: [4, 2, 5], weight: 1 },
    ]);
    expect(fused[0]?.id).toBe(2);
  });

  test("scores are normalised so first in every list is 1", () => {
    const fused = fuseByRank([
      { ids: [7], weight: 1 },
      { ids: [7], weight: 0.5 },
    ]);
    expect(fused[0]).toEqual({ id: 7, score: 1 });
  });

  test("a zero-weight list is ignored", () => {
    const fused = fuseByRank([
      { ids: [1], weight: 1 },
      { ids: [2], weight: 0 },
    ]);
    expect(fused.map((f) => f.id)).toEqual([1]);
  });
});
