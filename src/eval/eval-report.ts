import type { EvalCase } from "./eval-cases.ts";

/** What the pipeline did with one case. */
export interface CaseOutcome {
  answer: string;
  refused: boolean;
  sources: string[];
  /** the passages a model would be given (empty for a refusal) */
  context: string[];
  searchQuery: string;
  /** the grounding relevance the gate judged (0..1; 0 for a refusal with nothing found) */
  relevance: number;
  /** "low": the answer said it is only the closest passage found */
  confidence: "high" | "low" | null;
  ms: number;
  /** a failure the pipeline reported instead of an answer (its stable code) */
  error?: string;
}

/**
 * correct: the answer holds an expected string; wrong: a confident answer that does not; weak: a hedged answer ("the
 * closest passage I found") that does not — honest, but no answer; refused: an answerable question refused.
 */
export type Verdict = "correct" | "wrong" | "weak" | "refused" | "refused_right" | "answered_wrongly" | "error";

export interface JudgedCase {
  case: EvalCase;
  outcome: CaseOutcome;
  verdict: Verdict;
  /** an expected string is in the context a model would be given (answer cases only) */
  contextHit: boolean;
}

/** How the dev set's README compares: case-insensitively after collapsing runs of whitespace. */
const norm = (s: string) => s.toLowerCase().replace(/\s+/g, " ");
export const containsAny = (text: string, expected: string[]) => {
  const t = norm(text);
  return expected.some((e) => t.includes(norm(e).trim()));
};

export function judge(c: EvalCase, o: CaseOutcome): JudgedCase {
  let verdict: Verdict;
  if (o.error) verdict = "error";
  else if (c.kind === "refuse") verdict = o.refused ? "refused_right" : "answered_wrongly";
  else if (o.refused) verdict = "refused";
  else if (containsAny(o.answer, c.expectAny)) verdict = "correct";
  else verdict = o.confidence === "low" ? "weak" : "wrong";
  const contextHit = c.kind === "answer" && containsAny(o.context.join("\n"), c.expectAny);
  return { case: c, outcome: o, verdict, contextHit };
}

export interface GroupReport {
  cases: number;
  answer_cases: number;
  refuse_cases: number;
  /** shares of answer cases */
  correct: number;
  /** confident answers without the expected text: the worst outcome */
  wrong: number;
  /** hedged answers without the expected text */
  weak: number;
  answerable_refused: number;
  /** share of refuse cases refused */
  refusals_right: number;
  errors: number;
  /** the expected text is in the passages a model would be given, share of answer cases */
  context_recall: number;
  /** answered answer cases: mean share of reported sources that are the expected document */
  source_precision: number | null;
  /** answered answer cases: the expected document is among the sources */
  source_recall: number | null;
  mean_words: number;
  p90_words: number;
  latency_ms: { p50: number; p95: number };
}

export interface EvalReport {
  overall: GroupReport;
  by_style: Record<string, GroupReport>;
  /** answer, refuse (off-topic: no document holds the subject), refuse (on-topic) */
  by_kind: Record<string, GroupReport>;
  cases: {
    id: string;
    kind: string;
    style: string;
    verdict: Verdict;
    context_hit: boolean;
    question: string;
    search_query: string;
    relevance: number;
    confidence: "high" | "low" | null;
    answer: string;
    sources: string[];
    ms: number;
    error?: string;
  }[];
}

const share = (n: number, d: number) => (d === 0 ? 0 : n / d);
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
}

export function groupReport(judged: JudgedCase[]): GroupReport {
  const ans = judged.filter((j) => j.case.kind === "answer");
  const ref = judged.filter((j) => j.case.kind === "refuse");
  const count = (list: JudgedCase[], v: Verdict) => list.filter((j) => j.verdict === v).length;
  const answered = judged.filter((j) => !j.outcome.refused && !j.outcome.error);
  const lengths = answered.map((j) => words(j.outcome.answer)).sort((a, b) => a - b);
  const withDoc = ans.filter((j) => j.case.doc !== "" && !j.outcome.refused && !j.outcome.error && j.outcome.sources.length > 0);
  const precision = withDoc.map((j) => share(j.outcome.sources.filter((s) => s === j.case.doc).length, j.outcome.sources.length));
  const ms = judged.map((j) => j.outcome.ms).sort((a, b) => a - b);
  return {
    cases: judged.length,
    answer_cases: ans.length,
    refuse_cases: ref.length,
    correct: round(share(count(ans, "correct"), ans.length)),
    wrong: round(share(count(ans, "wrong"), ans.length)),
    weak: round(share(count(ans, "weak"), ans.length)),
    answerable_refused: round(share(count(ans, "refused"), ans.length)),
    refusals_right: round(share(count(ref, "refused_right"), ref.length)),
    errors: count(judged, "error"),
    context_recall: round(share(ans.filter((j) => j.contextHit).length, ans.length)),
    source_precision: precision.length ? round(precision.reduce((a, b) => a + b, 0) / precision.length) : null,
    source_recall: withDoc.length
      ? round(share(withDoc.filter((j) => j.outcome.sources.includes(j.case.doc)).length, withDoc.length))
      : null,
    mean_words: round(lengths.length ? lengths.reduce((a, b) => a + b, 0) / lengths.length : 0, 1),
    p90_words: percentile(lengths, 0.9),
    latency_ms: { p50: round(percentile(ms, 0.5), 1), p95: round(percentile(ms, 0.95), 1) },
  };
}

function groupBy(judged: JudgedCase[], key: (j: JudgedCase) => string): Record<string, GroupReport> {
  const groups = new Map<string, JudgedCase[]>();
  for (const j of judged) groups.set(key(j), [...(groups.get(key(j)) ?? []), j]);
  return Object.fromEntries([...groups].map(([k, list]) => [k, groupReport(list)]));
}

const kindOf = (c: EvalCase) => (c.kind === "answer" ? "answer" : c.doc === "" ? "refuse (off-topic)" : "refuse (on-topic)");

export function buildReport(judged: JudgedCase[]): EvalReport {
  return {
    overall: groupReport(judged),
    by_style: groupBy(judged, (j) => j.case.style),
    by_kind: groupBy(judged, (j) => kindOf(j.case)),
    cases: judged.map((j) => ({
      id: j.case.id,
      kind: j.case.kind,
      style: j.case.style,
      verdict: j.verdict,
      context_hit: j.contextHit,
      question: j.case.question,
      search_query: j.outcome.searchQuery,
      relevance: round(j.outcome.relevance),
      confidence: j.outcome.confidence,
      answer: j.outcome.answer,
      sources: j.outcome.sources,
      ms: round(j.outcome.ms, 1),
      ...(j.outcome.error ? { error: j.outcome.error } : {}),
    })),
  };
}

const pct = (x: number | null) => (x === null ? "–" : `${Math.round(x * 100)} %`);

/** The report as a Markdown table, one row per group (for the CLI and BENCHMARKS.md). */
export function reportTable(r: EvalReport): string {
  const head =
    "| group | cases | correct | wrong | weak (hedged) | answerable refused | refusals right | context recall | source precision | mean / p90 words | p50 / p95 ms |";
  const sep = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";
  const line = (name: string, g: GroupReport) =>
    `| ${name} | ${g.cases} | ${g.answer_cases ? pct(g.correct) : "–"} | ${g.answer_cases ? pct(g.wrong) : "–"} | ${
      g.answer_cases ? pct(g.weak) : "–"
    } | ${
      g.answer_cases ? pct(g.answerable_refused) : "–"
    } | ${g.refuse_cases ? pct(g.refusals_right) : "–"} | ${g.answer_cases ? pct(g.context_recall) : "–"} | ${pct(
      g.source_precision,
    )} | ${g.mean_words} / ${g.p90_words} | ${g.latency_ms.p50} / ${g.latency_ms.p95} |`;
  return [
    head,
    sep,
    line("**overall**", r.overall),
    ...Object.entries(r.by_style).map(([k, g]) => line(`style: ${k}`, g)),
    ...Object.entries(r.by_kind).map(([k, g]) => line(`kind: ${k}`, g)),
  ].join("\n");
}
