/**
 * Answer quality on the default install (no model: keyword retrieval, the grounding gate, extractive answers),
 * all through the product's own code:
 *   1. SQuAD 2.0 (8 dev articles pushed as documents): the gate's answerable-pass, out-of-corpus refusal and
 *      on-topic-unanswerable refusal, refusal F1 — the previous topic gate (term coverage ≥ 0.49) next to the
 *      answer gate, with a threshold sweep; and for answerable questions, how often the extractive answer
 *      contains the reference answer and how long it is, next to quoting the best chunk whole.
 *   2. SciFact (5,183 abstracts, 809 judged claims, all answerable): asked through the HTTP API
 *      (/api/v1/chat/completions-with-sources); refusal rate and nDCG@10 of the `chunks` the API returns (a
 *      refusal returns none) next to plain BM25's ranking of the same claims; and the same deployment's BM25
 *      ranking after another deployment in the same data dir received the SQuAD articles (per-deployment
 *      statistics: it must not move) — on SQLite and on PostgreSQL (a throwaway cluster) in the same run.
 *
 *   bun bench/answers.bench.ts [--only squad,scifact] [--engines sqlite,postgres] [--no-write]
 */
import { parseArgs } from "node:util";
import { MIN_IDF_CORPUS } from "../src/chat/create-chat.ts";
import { composeAnswer } from "../src/rag/compose-answer.ts";
import { isGrounded, termCoverage, termWeights } from "../src/rag/grounding-gate.ts";
import { statsSnapshot } from "../src/rag/retrieve.ts";
import { queryTerms } from "../src/rag/terms.ts";
import { createServer } from "../src/server/create-server.ts";
import { sectionWriter } from "./lib/benchmarks-md.ts";
import { loadAverage } from "./lib/machine-info.ts";
import { percentile } from "./lib/percentiles.ts";
import { benchRetriever, loadPassages, openBenchDeployment, pushSquadArticles } from "./lib/product-index.ts";
import { ndcgAt } from "./lib/retrieval.metrics.ts";
import { baselineWords, fts5Baseline } from "./lib/fts5-baseline.ts";
import { loadScifact, passageText } from "./lib/scifact.dataset.ts";
import { loadSquad, type SquadQuestion } from "./lib/squad.dataset.ts";
import type { PgStore } from "../src/store/postgres/pg-store.ts";
import type { Engine } from "../test/helpers/index-drivers.ts";

const { values: args } = parseArgs({
  options: {
    only: { type: "string", default: "squad,scifact" },
    engines: { type: "string", default: "sqlite,postgres" },
    "no-write": { type: "boolean", default: false },
  },
});
const only = new Set(args.only?.split(","));
const engines = (args.engines?.split(",") ?? []).filter((e): e is Engine => e === "sqlite" || e === "postgres");
const f = (x: number, d = 3) => x.toFixed(d);
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
const write = sectionWriter("bench/answers.bench.ts", !args["no-write"]);
const TOP_K = 5;
const DEFAULT_THRESHOLD = 0.37;
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

// ---------- 1. SQuAD 2.0 ----------
const squad = await loadSquad();
/** The gate on SQuAD 2.0: refusal quality and the extractive answers (SQLite; the gate is the same code on either engine). */
async function squadSections() {
  const sb = await openBenchDeployment();
  await pushSquadArticles(sb.services, sb.deploymentId, squad.articles);
  const retriever = benchRetriever(sb, { embedder: null });
  const stats = sb.services.repos.termStats;
  interface SquadRecord {
    q: SquadQuestion;
    answerability: number;
    topicCoverage: number;
    composed: string;
    wholeChunk: string;
  }
  const records: SquadRecord[] = [];
  for (const q of squad.questions) {
    const r = await retriever.retrieve({ deploymentId: sb.deploymentId, query: q.question, topK: TOP_K });
    const terms = queryTerms(q.question);
    const weights = termWeights(sb.deploymentId, terms, await statsSnapshot(stats, sb.deploymentId, terms), MIN_IDF_CORPUS);
    const topicCoverage = Math.max(0, ...r.hits.map((h) => termCoverage(weights, `${h.source}\n${h.headingPath}\n${h.text}`)));
    const passages = r.hits.map((h) => ({ text: h.text, source: h.source, headingPath: h.headingPath }));
    const composed =
      q.kind === "answerable" ? composeAnswer({ passages, question: q.question, maxTokens: 512, weights: r.weights }).text : "";
    const best = [...r.hits].sort((x, y) => y.relevance - x.relevance)[0];
    records.push({ q, answerability: r.relevance, topicCoverage, composed, wholeChunk: best?.text ?? "" });
  }
  await sb.close();

  const half = (parity: 0 | 1) => records.filter((_, i) => i % 2 === parity);
  function gateRow(name: string, score: (r: SquadRecord) => number, th: number, subset = records) {
    const pass = (r: SquadRecord) => isGrounded(score(r), th);
    const by = (k: SquadQuestion["kind"]) => subset.filter((r) => r.q.kind === k);
    const ans = by("answerable");
    const ooc = by("out-of-corpus");
    const un = by("unanswerable");
    const tp = ooc.filter((r) => !pass(r)).length;
    const fp = ans.filter((r) => !pass(r)).length;
    const precision = tp / Math.max(1, tp + fp);
    const recall = tp / ooc.length;
    return {
      cells: [
        name,
        f(th, 2),
        pct(ans.filter(pass).length / ans.length),
        pct(recall),
        pct(un.filter((r) => !pass(r)).length / un.length),
        f(precision),
        f((2 * precision * recall) / (precision + recall)),
      ],
      passed: new Set(ans.filter(pass)),
      answerablePassed: ans.filter(pass).length / ans.length,
      unanswerableRefused: un.filter((r) => !pass(r)).length / un.length,
      f1: (2 * precision * recall) / (precision + recall),
    };
  }
  /**
   * The default threshold, chosen on the even-numbered questions only: the most on-topic refusals while at least
   * 85 % of answerable questions pass and refusal F1 stays ≥ 0.9; reported on the odd-numbered ones (held out).
   */
  const candidates = Array.from({ length: 31 }, (_, i) => 0.25 + i * 0.01);
  const tuned =
    candidates
      .map((th) => ({ th, r: gateRow("", (x) => x.answerability, th, half(0)) }))
      .filter((c) => c.r.answerablePassed >= 0.85 && c.r.f1 >= 0.9)
      .sort((a, b) => b.r.unanswerableRefused - a.r.unanswerableRefused)[0]?.th ?? DEFAULT_THRESHOLD;
  const GATE_HEAD = [
    row([
      "gate",
      "threshold",
      "answerable passed",
      "out-of-corpus refused",
      "on-topic unanswerable refused",
      "refusal precision",
      "refusal F1",
    ]),
    row(["---", "---:", "---:", "---:", "---:", "---:", "---:"]),
  ];
  const previous = gateRow("previous: topic coverage of the passage (v0.1)", (r) => r.topicCoverage, 0.49);
  const current = gateRow(
    "answer gate: one sentence covers the question and holds the answer type",
    (r) => r.answerability,
    DEFAULT_THRESHOLD,
  );
  const heldOut = [
    gateRow("previous topic gate, held-out half", (r) => r.topicCoverage, 0.49, half(1)).cells,
    gateRow(`answer gate at the threshold tuned on the other half (${f(tuned, 2)}), held-out half`, (r) => r.answerability, tuned, half(1))
      .cells,
  ];
  const sweep = [0.3, 0.34, 0.37, 0.4, 0.44, 0.5].map((th) => gateRow("answer gate", (r) => r.answerability, th).cells);

  const answerable = records.filter((r) => r.q.kind === "answerable");
  function answerRow(name: string, text: (r: SquadRecord) => string, subset: SquadRecord[]) {
    const contains = subset.filter((r) => r.q.answers.some((a) => text(r).toLowerCase().includes(a.toLowerCase()))).length;
    const lengths = subset.map((r) => words(text(r)));
    return row([
      name,
      subset.length,
      pct(contains / subset.length),
      f(lengths.reduce((s, n) => s + n, 0) / lengths.length, 1),
      f(percentile(lengths, 90), 0),
    ]);
  }
  const passedAnswerable = answerable.filter((r) => current.passed.has(r));
  await write(
    "Answers: refusal gate (SQuAD 2.0)",
    [
      `The 8 SQuAD 2.0 dev articles pushed through the documents service (parse → chunk → index) into one deployment; keyword retrieval, top ${TOP_K}; ${answerable.length} answerable questions (should pass), ${records.filter((r) => r.q.kind === "out-of-corpus").length} out-of-corpus questions from other articles (should be refused; refusal is the positive class of F1), ${records.filter((r) => r.q.kind === "unanswerable").length} on-topic unanswerable ones (adversarial: same article, answer absent).`,
      "",
      ...GATE_HEAD,
      row(previous.cells),
      row(current.cells),
      "",
      `Tuned on the even-numbered questions (most on-topic refusals with ≥ 85 % answerable passed and refusal F1 ≥ 0.9): ${f(tuned, 2)}; the product's default is ${DEFAULT_THRESHOLD}. On the odd-numbered (held-out) questions:`,
      "",
      ...GATE_HEAD,
      ...heldOut.map(row),
      "",
      "Threshold sweep of the answer gate (the default is DOCCHAT_REFUSAL_THRESHOLD):",
      "",
      ...GATE_HEAD,
      ...sweep.map(row),
    ].join("\n"),
  );
  await write(
    "Answers: extractive answer quality (SQuAD 2.0)",
    [
      "For answerable questions: does the answer contain a reference answer (case-insensitive), and how long is it. The composer (rag/compose-answer.ts) quotes the sentences, rows or items that answer; the baseline quotes the best-scoring chunk whole, as answers did before. Both from the same retrieval.",
      "",
      row(["answer", "questions", "contains the reference answer", "mean words", "p90 words"]),
      row(["---", "---:", "---:", "---:", "---:"]),
      answerRow("composed sentences — questions the gate passes", (r) => r.composed, passedAnswerable),
      answerRow("whole best chunk — questions the gate passes", (r) => r.wholeChunk, passedAnswerable),
      answerRow("composed sentences — all answerable", (r) => r.composed, answerable),
      answerRow("whole best chunk — all answerable", (r) => r.wholeChunk, answerable),
    ].join("\n"),
  );
}
if (only.has("squad")) await squadSections();

// ---------- 2. SciFact through the API ----------
async function scifactSection() {
  const ds = await loadScifact();
  const ndcg = (run: Map<string, string[]>) =>
    ds.queries.reduce((s, q) => s + ndcgAt(run.get(q.id) ?? [], ds.qrels.get(q.id) ?? new Map(), 10), 0) / ds.queries.length;
  // plain BM25 outside the product on the same abstracts and claims: FTS5 without stemming, and with Porter's
  const docs = ds.corpus.map((p) => ({ id: p.id, text: passageText(p) }));
  const baselines = ["unicode61 remove_diacritics 2", "porter unicode61 remove_diacritics 2"].map((tokenize) => {
    const b = fts5Baseline(docs, tokenize);
    const run = new Map(ds.queries.map((q) => [q.id, b.search(baselineWords(q.text), 10)]));
    b.close();
    return (topK: number) => ndcg(new Map([...run].map(([id, r]) => [id, r.slice(0, topK)])));
  });
  const pg = engines.includes("postgres") ? await import("../test/helpers/postgres.ts").then((m) => m.startPostgres()) : null;
  let databases = 0;
  /** a new, empty database with pgvector in the throwaway cluster: one per run, as one per data dir on SQLite */
  async function freshDatabase(): Promise<string> {
    if (!pg) throw new Error("no PostgreSQL cluster");
    const name = `scifact_${databases++}`;
    const admin = new Bun.SQL(pg.url, { max: 1 });
    await admin.unsafe(`CREATE DATABASE ${name}`);
    await admin.close();
    const url = pg.url.replace(/\/docchat$/, `/${name}`);
    const db = new Bun.SQL(url, { max: 1 });
    await db`CREATE EXTENSION IF NOT EXISTS vector`;
    await db.close();
    return url;
  }

  /** One engine: SciFact loaded once, asked through the API at each DOCCHAT_TOP_K (a restart in between). */
  async function scifactRuns(engine: Engine) {
    const fb = await openBenchDeployment(engine === "postgres" ? { DOCCHAT_DATABASE_URL: await freshDatabase() } : {});
    await fb.services.embedder(); // records the (keyword-only) index meta, as the first training does
    await loadPassages(
      fb,
      ds.corpus.map((p) => ({ source: p.id, text: passageText(p) })),
    );
    // autovacuum's job in production: the planner reads fresh statistics
    if (fb.services.store.engine === "postgres") await (fb.services.store as PgStore).sql`VACUUM ANALYZE`;
    const bm25Ranking = async (topK: number) => {
      const r = benchRetriever(fb, { embedder: null });
      const out = new Map<string, string[]>();
      for (const q of ds.queries)
        out.set(
          q.id,
          (await r.retrieve({ deploymentId: fb.deploymentId, query: q.text, topK })).hits.map((h) => h.source),
        );
      return out;
    };
    async function throughApi(topK: number) {
      await fb.reopen({ DOCCHAT_TOP_K: String(topK) });
      const plain = await bm25Ranking(topK);
      const app = createServer(fb.services).listen({ port: 0, hostname: "127.0.0.1" });
      const url = `http://127.0.0.1:${app.server?.port}`;
      const api = new Map<string, string[]>();
      let refused = 0;
      const t0 = performance.now();
      for (const q of ds.queries) {
        const res = await fetch(`${url}/api/v1/chat/completions-with-sources`, {
          method: "POST",
          headers: { authorization: `Bearer ${fb.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "scifact", messages: [{ role: "user", content: q.text }] }),
        });
        const body = (await res.json()) as { chunks?: { source: string }[] };
        if (!res.ok) throw new Error(`HTTP ${res.status}: ${JSON.stringify(body)}`);
        const chunks = body.chunks ?? [];
        if (chunks.length === 0) refused++;
        api.set(
          q.id,
          chunks.map((c) => c.source),
        );
      }
      const apiMs = (performance.now() - t0) / ds.queries.length;
      await app.stop(true);
      return { topK, plain, api, refused, apiMs };
    }
    const asked = [await throughApi(5), await throughApi(10)];
    // another tenant in the same data dir receives the SQuAD articles: this deployment's ranking must not move
    const owner = (await fb.services.repos.deployments.findById(fb.deploymentId))?.accountId ?? 1;
    const other = await fb.services.deployments.create({ accountId: owner, name: "Other tenant", kind: "docs", published: true });
    await pushSquadArticles(fb.services, other.deployment.id, squad.articles);
    const out = [];
    for (const a of asked) {
      const afterOther = await bm25Ranking(a.topK);
      out.push({
        engine,
        topK: a.topK,
        plain: ndcg(a.plain),
        unstemmed: baselines[0]?.(a.topK) ?? 0,
        porter: baselines[1]?.(a.topK) ?? 0,
        api: ndcg(a.api),
        after: ndcg(afterOther),
        refused: a.refused,
        identical: ds.queries.every((q) => JSON.stringify(a.plain.get(q.id)) === JSON.stringify(afterOther.get(q.id))),
        apiMs: a.apiMs,
      });
    }
    await fb.close();
    return out;
  }
  const runs: Awaited<ReturnType<typeof scifactRuns>> = [];
  try {
    for (const engine of engines) runs.push(...(await scifactRuns(engine)));
  } finally {
    await pg?.stop();
  }
  await write(
    "Answers: SciFact claims through the API",
    [
      `${ds.corpus.length} abstracts in one deployment (one chunk each, written through the product's repositories); each of the ${ds.queries.length} judged train claims asked through POST /api/v1/chat/completions-with-sources on a real server (extractive backend); the ranking scored is the \`chunks\` list the API returns (empty when refused), next to the product's own keyword ranking (\`retrieve()\`, no gate: analyzed terms, Snowball English) and to plain BM25 outside the product (SQLite FTS5 \`bm25()\` over the same abstracts, queried with an OR of the claim's content words: unstemmed, and with FTS5's Porter stemmer), all cut at the same number of passages (DOCCHAT_TOP_K: 5 is the default) and scored by nDCG@10. Every claim has its supporting abstract in the corpus, so every refusal is wrong. Each engine in a fresh data dir (SQLite) or database (PostgreSQL ${pg ? "15 + pgvector, throwaway cluster, fsync off, `VACUUM ANALYZE` after loading" : "not run"}), one after the other in the same run; load average ${f(loadAverage(), 1)} at the end (the machine is shared: compare rows within this run).`,
      "",
      row([
        "engine",
        "DOCCHAT_TOP_K",
        "plain BM25 (FTS5, unstemmed)",
        "plain BM25 (FTS5, Porter)",
        "product retrieve() nDCG@10",
        "through the API nDCG@10",
        "API − Porter",
        "claims refused",
        "BM25 after another deployment received 8 articles",
        "API ms/claim",
      ]),
      row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]),
      ...runs.map((r) =>
        row([
          r.engine,
          r.topK,
          f(r.unstemmed),
          f(r.porter),
          f(r.plain),
          f(r.api),
          f(r.api - r.porter),
          `${r.refused} (${pct(r.refused / ds.queries.length)})`,
          `${f(r.after)} (${r.identical ? "identical ranking for every claim" : "RANKING MOVED"})`,
          f(r.apiMs, 1),
        ]),
      ),
      "",
      'Per-deployment statistics: keyword tables are per deployment, so another tenant\'s upload leaves this ranking bit-identical (last column but one). Before that change the SciFact figure through the product was 0.671 at top 10 (see "Retrieval quality through the product"), measured in a data dir holding only SciFact, where shared and per-deployment statistics coincide: it is unchanged.',
    ].join("\n"),
  );
}
if (only.has("scifact")) await scifactSection();
