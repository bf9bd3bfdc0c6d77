import { describe, expect, test } from "bun:test";
import {
  ABSENT_CLAIM_SHARE,
  answerability,
  blendRelevance,
  EVIDENCE_BONUS,
  isGrounded,
  termCoverage,
  termWeights,
} from "../../src/rag/grounding-gate.ts";

const stats = (total: number, df: Record<string, number>) => ({
  totalChunks: () => total,
  documentFrequencies: (_deploymentId: string, terms: string[]) => new Map(terms.map((t) => [t, df[t] ?? 0])),
});

describe("grounding gate", () => {
  test("coverage weighs rare words more than common ones", () => {
    const w = termWeights("d", ["huguenots", "year"], stats(1000, { huguenots: 3, year: 400 }));
    expect(termCoverage(w, "The Huguenots fled.")).toBeGreaterThan(0.8);
    expect(termCoverage(w, "That year was cold.")).toBeLessThan(0.2);
  });

  test("suffix forms of a word count as the word", () => {
    const w = termWeights("d", ["refunds"], stats(100, { refund: 5 }));
    expect(termCoverage(w, "Annual plans can be refunded.")).toBe(1);
  });

  test("inflections meet: include, includes, included and including are one word", () => {
    const w = termWeights("d", ["include"], stats(100, { include: 5 }));
    for (const text of ["It includes SSO.", "SSO is included.", "including SSO"]) expect(termCoverage(w, text)).toBe(1);
  });

  test("a word the documents never mention pulls coverage down the most", () => {
    const w = termWeights("d", ["football", "world", "cup"], stats(100, { world: 10 }));
    expect(termCoverage(w, "The world of plans")).toBeLessThan(0.3);
  });

  test("a claim's word the deployment holds nowhere counts half: often the documents write its subject another way", () => {
    // "Qβ" where the abstracts write "Qbeta": the one abstract that names MS2 is about the claim
    const w = termWeights("d", ["qβ", "ms2", "capsid"], stats(5000, { ms2: 1, capsid: 40 }));
    expect([...(w.absent ?? [])]).toEqual(["qβ"]);
    const [absent, ms2, capsid] = ["qβ", "ms2", "capsid"].map((t) => w.get(t) ?? 0) as [number, number, number];
    const passage = { text: "The MS2 virion holds 178 copies of the coat protein.", source: "abstract", headingPath: "" };
    const claim = answerability(w, "Qβ and MS2 are members of one family.", passage);
    // the one shared word is the rarest the deployment holds (df 1): evidence enough for the bonus
    expect(claim).toBeCloseTo(ms2 / (ms2 + capsid + ABSENT_CLAIM_SHARE * absent) + EVIDENCE_BONUS, 5);
    expect(isGrounded(claim, 0.37)).toBe(true);
    // counted whole, the absent word alone outweighed what the passage shares
    expect(ms2 / (ms2 + capsid + absent)).toBeLessThan(0.37);
  });

  test("a floor on the corpus size keeps a one-chunk deployment from being dominated by one absent word", () => {
    const tiny = stats(1, { extra: 1, storage: 1 });
    const raw = termCoverage(termWeights("d", ["extra", "storage", "buy"], tiny), "Extra storage is sold in blocks.");
    const floored = termCoverage(termWeights("d", ["extra", "storage", "buy"], tiny, 250), "Extra storage is sold in blocks.");
    expect(raw).toBeLessThan(0.5);
    expect(floored).toBeGreaterThan(0.6);
  });

  test("cosine blending is calibrated and only applies when a calibration exists", () => {
    expect(blendRelevance(0.4, 0.9, null)).toBe(0.4);
    expect(blendRelevance(0.4, 0.9, { low: 0.2, high: 0.6, weight: 0.5 })).toBeCloseTo(0.7);
    expect(blendRelevance(0.4, 0.1, { low: 0.2, high: 0.6, weight: 0.5 })).toBeCloseTo(0.2);
  });

  test("zero relevance never passes, even at a zero threshold", () => {
    expect(isGrounded(0, 0)).toBe(false);
    expect(isGrounded(0.5, 0.5)).toBe(true);
  });
});

describe("what 'how many' counts", () => {
  test("the noun after 'how many' is counted; 'how many times' and 'how many of' count no thing", async () => {
    const { questionShape } = await import("../../src/rag/question-shape.ts");
    expect(questionShape("How many US-registered planes would the rule apply to?").counted).toBe("planes");
    expect(questionShape("How many participants will be enrolled in each arm?").counted).toBe("participants");
    expect(questionShape("How many times did he knock?").counted).toBeUndefined();
    expect(questionShape("How many of the students passed?").counted).toBeUndefined();
    // (the first plural: "settled" is the verb)
    expect(questionShape("How many settlers originally settled in Manakintown?").counted).toBe("settlers");
  });

  test("a unit that writes a count of the thing asked leads one that only names the thing", async () => {
    const { questionShape } = await import("../../src/rag/question-shape.ts");
    const { scoreUnits } = await import("../../src/rag/answer-units.ts");
    const q = "How many planes would the proposed 737 MAX rule apply to?";
    const w = termWeights("d", ["planes", "proposed", "737", "max", "rule", "apply"], stats(100, { plane: 10, propos: 10, 737: 10, max: 10, rule: 10, appli: 10 }));
    // (the question gives "737": it is no count)
    const text = "The proposed rule, dated June 12, 2020, applies to all 737 MAX planes. The FAA estimates that the proposed rule affects 73 airplanes of U.S. registry.";
    const units = scoreUnits(w, q, questionShape(q), [{ text, source: "notice", headingPath: "" }]);
    const best = units.reduce((a, b) => (b.score > a.score ? b : a));
    expect(best.unit.text).toContain("73 airplanes");
  });
});
