/**
 * A fake embeddings + rerank server speaking the OpenAI-compatible wire format (and TEI's native rerank), as a real
 * HTTP server on 127.0.0.1 and a random port. Its embeddings are deterministic: words are folded through a small
 * synonym table ("dose" and "mg/day" become one concept), then feature-hashed into `dimension` signed buckets, so
 * known paraphrases land close and unrelated texts far apart. Rerank scores come from the same concepts (the share
 * of the query's concepts a passage mentions, see fakeRelevance), unless a test overrides them.
 */
import { l2Normalize } from "../../src/rag/embedders/l2-normalise.ts";

const SYNONYMS: Record<string, string> = {
  dose: "dosage",
  doses: "dosage",
  dosage: "dosage",
  dosing: "dosage",
  dosed: "dosage",
  "mg/day": "dosage",
  mg: "dosage",
  daily: "dosage",
  refund: "refund",
  refunds: "refund",
  reimbursement: "refund",
  repaid: "refund",
  money: "refund",
  back: "refund",
  car: "vehicle",
  cars: "vehicle",
  automobile: "vehicle",
  vehicle: "vehicle",
};
const STOP = new Set([
  "the",
  "a",
  "an",
  "is",
  "what",
  "of",
  "to",
  "for",
  "in",
  "on",
  "and",
  "how",
  "do",
  "i",
  "my",
  "it",
  "are",
  "get",
  "be",
  "can",
  "per",
]);
const KNOWN_PREFIX = /^(search_query|search_document|query|passage): |^Represent this sentence for searching relevant passages: /;

/** The concepts of a text: lower-cased words folded through the synonym table, stop words dropped. */
export function concepts(text: string): string[] {
  const words =
    text
      .replace(KNOWN_PREFIX, "")
      .toLowerCase()
      .match(/[a-z0-9]+(?:\/[a-z]+)?/g) ?? [];
  return words.filter((w) => !STOP.has(w)).map((w) => SYNONYMS[w] ?? w);
}

function hash(s: string, seed: number): number {
  let h = 2166136261 ^ seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * The deterministic embedding: signed feature hashing of the distinct concepts (a passage repeating a word is not
 * more about it), plus a small constant so no vector is zero.
 */
export function fakeEmbedding(text: string, dimension: number): Float32Array {
  const v = new Float32Array(dimension);
  for (const c of new Set(concepts(text))) {
    v[hash(c, 1) % dimension] = (v[hash(c, 1) % dimension] ?? 0) + (hash(c, 2) % 2 === 0 ? 1 : -1);
  }
  v[0] = (v[0] ?? 0) + 0.05;
  return l2Normalize(v);
}

/**
 * The fake cross-encoder: the share of the query's concepts the passage mentions (same synonym folding as the
 * embeddings), with a little cosine to break ties. A passage answering a paraphrase scores near 1.
 */
export function fakeRelevance(query: string, passage: string, dimension: number): number {
  const q = new Set(concepts(query));
  const p = new Set(concepts(passage));
  const coverage = q.size === 0 ? 0 : [...q].filter((c) => p.has(c)).length / q.size;
  const a = fakeEmbedding(query, dimension);
  const b = fakeEmbedding(passage, dimension);
  let dot = 0;
  for (let i = 0; i < dimension; i++) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return Math.min(1, Math.max(0, 0.9 * coverage + 0.1 * dot));
}

export interface FakeModelServerOptions {
  dimension?: number;
  /** milliseconds before each answer */
  delayMs?: number;
  /** simulated model cost: each embeddings request takes perRequestMs + perTextMs × texts, one request at a time */
  cost?: { perRequestMs: number; perTextMs: number };
  /** answer 503 to everything (the server is "down" but listening) */
  failing?: boolean;
  /** the rerank endpoint speaks TEI's native format only ({query, texts} → [{index, score}]) */
  rerankFormat?: "documents" | "tei";
  /** return raw logits instead of probabilities from /rerank (llama.cpp's server) */
  rerankLogits?: boolean;
  /** overrides the rerank score of (query, passage) */
  rerankScore?: (query: string, passage: string) => number;
  /** the model names this server serves (any, when absent) */
  models?: string[];
}

export interface FakeModelCall {
  path: string;
  model?: string;
  input?: string[];
  query?: string;
  documents?: string[];
  authorization: string | null;
  /** requests being answered at the moment this one arrived (itself included) */
  inFlight: number;
}

export interface FakeModelServer {
  /** base URL including /v1 */
  url: string;
  port: number;
  calls: FakeModelCall[];
  embeddingCalls(): FakeModelCall[];
  set(opts: Partial<FakeModelServerOptions>): void;
  /** texts embedded, time spent in handlers, and simulated model time (with `cost`) since start */
  stats(): { texts: number; busyMs: number; computeMs: number };
  /** stops listening (connections are refused), keeping the port for `restart` */
  stop(): Promise<void>;
  restart(): void;
  close(): Promise<void>;
}

export function startFakeModelServer(initial: FakeModelServerOptions = {}): FakeModelServer {
  const opts: FakeModelServerOptions = { dimension: 256, ...initial };
  const calls: FakeModelCall[] = [];
  let inFlight = 0;
  let texts = 0;
  let busyMs = 0;
  let slot: Promise<void> = Promise.resolve();
  /** One model slot, like llama-server -np 1: simulated compute of concurrent requests queues up. */
  let computeMs = 0;
  const compute = (ms: number) => {
    computeMs += ms;
    const run = slot.then(() => Bun.sleep(ms));
    slot = run;
    return run;
  };

  async function handle(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname.replace(/^\/v1/, "");
    const body = (await req.json().catch(() => null)) as Record<string, unknown> | null;
    inFlight++;
    const started = performance.now();
    try {
      const input = typeof body?.input === "string" ? [body.input] : (body?.input as string[] | undefined);
      // Recorded on arrival, so a test can see a request the (slow) server is still thinking about.
      const call: FakeModelCall = {
        path,
        authorization: req.headers.get("authorization"),
        inFlight,
        model: typeof body?.model === "string" ? body.model : undefined,
        input: path === "/embeddings" && Array.isArray(input) ? input : undefined,
      };
      calls.push(call);
      if (opts.delayMs) await Bun.sleep(opts.delayMs);
      if (opts.failing) return Response.json({ error: { message: "model is loading" } }, { status: 503 });
      if (opts.models && call.model && !opts.models.includes(call.model))
        return Response.json({ error: { message: `model ${call.model} not found` } }, { status: 404 });
      const dim = opts.dimension ?? 256;
      if (req.method === "POST" && path === "/embeddings") {
        if (!Array.isArray(input) || input.some((t) => typeof t !== "string" || t === ""))
          return Response.json({ error: { message: "input must be non-empty strings" } }, { status: 400 });
        if (opts.cost) await compute(opts.cost.perRequestMs + opts.cost.perTextMs * input.length);
        texts += input.length;
        return Response.json({
          object: "list",
          model: call.model,
          data: input.map((t, index) => ({ object: "embedding", index, embedding: Array.from(fakeEmbedding(t, dim)) })),
        });
      }
      if (req.method === "POST" && path === "/rerank") {
        const query = String(body?.query ?? "");
        const tei = opts.rerankFormat === "tei";
        const docs = (tei ? body?.texts : body?.documents) as string[] | undefined;
        if (!Array.isArray(docs))
          return Response.json({ error: `missing field \`${tei ? "texts" : "documents"}\``, error_type: "Validation" }, { status: 422 });
        call.query = query;
        call.documents = docs;
        const score = (d: string) => {
          const p = opts.rerankScore ? opts.rerankScore(query, d) : fakeRelevance(query, d, dim);
          return opts.rerankLogits ? Math.log(Math.max(p, 1e-6) / Math.max(1 - p, 1e-6)) : p;
        };
        const ranked = docs.map((d, index) => ({ index, s: score(d) })).sort((a, b) => b.s - a.s);
        if (tei) return Response.json(ranked.map((r) => ({ index: r.index, score: r.s })));
        const topN = typeof body?.top_n === "number" ? body.top_n : ranked.length;
        return Response.json({ model: call.model, results: ranked.slice(0, topN).map((r) => ({ index: r.index, relevance_score: r.s })) });
      }
      return Response.json({ error: { message: "not found" } }, { status: 404 });
    } finally {
      inFlight--;
      busyMs += performance.now() - started;
    }
  }

  let server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handle });
  const port = server.port as number;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    calls,
    embeddingCalls: () => calls.filter((c) => c.path === "/embeddings" && c.input),
    set(o) {
      Object.assign(opts, o);
    },
    stats: () => ({ texts, busyMs, computeMs }),
    async stop() {
      await server.stop(true);
    },
    restart() {
      server = Bun.serve({ hostname: "127.0.0.1", port, fetch: handle });
    },
    async close() {
      await server.stop(true);
    },
  };
}
