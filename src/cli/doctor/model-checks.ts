/**
 * Doctor and `docchat models` on the retrieval models: which embedder and reranker are active, where they run
 * (local or remote), their model id and dimension, and whether a remote server answers. `load` embeds and
 * reranks one probe text through the real code path.
 */
import { resolve } from "node:path";
import type { Config } from "../../config/index.ts";
import type { Check, Status } from "./checks.ts";

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const PROBE = {
  query: "How long do refunds take?",
  documents: ["Refunds are paid within 14 days of the return.", "The office is closed on public holidays."],
};

/** Short deadlines and no retries: doctor reports, it does not wait out an outage. */
const quick = (config: Config): Config => ({
  ...config,
  embeddingsTimeoutMs: Math.min(config.embeddingsTimeoutMs, 5000),
  embeddingsRetries: 0,
});

export async function checkEmbedder(config: Config, opts: { load: boolean; offline?: boolean }): Promise<Check> {
  const configured = config.embedder;
  try {
    const { resolveEmbedder, describeEmbedder, createEmbedder, embedderConfig } = await import("../../rag/embedders/create-embedder.ts");
    const cfg = embedderConfig(quick(config));
    const choice = resolveEmbedder(cfg);
    const info = describeEmbedder(choice);
    if (!choice) {
      const why =
        configured === "none"
          ? "DOCCHAT_EMBEDDER=none"
          : `no DOCCHAT_EMBEDDINGS_URL, no ONNX model folder or embedding GGUF in ${resolve(config.modelsDir)}`;
      return { status: "ok", summary: `none — keyword-only retrieval (${why})`, configured, active: "none", where: "none" };
    }
    const base = {
      configured,
      active: choice.kind,
      where: info.where,
      model: info.model,
      ...(choice.kind === "openai" ? { url: choice.url, prefixes: choice.prefixes } : {}),
    };
    const remote = choice.kind === "openai";
    if (remote && opts.offline)
      return { status: "ok", summary: `remote ${choice.model} at ${choice.url} (not contacted: --offline)`, ...base };
    if (!remote && !opts.load)
      return { status: "ok", summary: `local ${choice.kind} ${info.model}; not loaded (doctor --load tries it)`, ...base };
    const started = performance.now();
    const embedder = await createEmbedder({ ...cfg, isolate: false });
    try {
      const v = opts.load ? await embedder?.embedQuery(PROBE.query) : undefined;
      const ms = Math.round(performance.now() - started);
      const what = `${info.where} ${embedder?.id}, dimension ${embedder?.dimension}`;
      const summary = remote
        ? `${what} at ${choice.url}: reachable${v ? `, embedded a probe in ${ms} ms` : ""}`
        : `${what}, loaded and embedded in ${ms} ms`;
      return { status: "ok", summary, ...base, id: embedder?.id, dimension: embedder?.dimension, reachable: remote ? true : undefined, ms };
    } finally {
      await embedder?.close?.();
    }
  } catch (e) {
    const unavailable = (e as { code?: string }).code === "model_server_unavailable";
    // An embeddings server that is down is a degraded service, not a broken one: chat answers from keywords and
    // training waits for it.
    const status: Status = unavailable ? "warn" : "error";
    const note = unavailable ? " — answers use keyword retrieval and training waits until it is back" : "";
    return { status, summary: `embedder ${configured}: ${message(e)}${note}`, configured, reachable: unavailable ? false : undefined };
  }
}

export async function checkReranker(config: Config, opts: { load: boolean; offline?: boolean }): Promise<Check> {
  const configured = config.reranker;
  try {
    const { resolveReranker, describeReranker, createReranker } = await import("../../rag/rerank/create-reranker.ts");
    const choice = resolveReranker(config);
    const info = describeReranker(choice);
    if (!choice)
      return {
        status: "ok",
        summary: "none — the gate judges term coverage (set DOCCHAT_RERANK_URL or put a reranker GGUF in the models folder)",
        configured,
        active: "none",
        where: "none",
      };
    const base = { configured, active: choice.kind, where: info.where, model: info.model, ...(info.url ? { url: info.url } : {}) };
    const remote = choice.kind === "http";
    if (remote && opts.offline)
      return { status: "ok", summary: `remote ${info.model ?? "(server's model)"} at ${info.url} (not contacted: --offline)`, ...base };
    if (!remote && !opts.load) return { status: "ok", summary: `local gguf ${info.model}; not loaded (doctor --load tries it)`, ...base };
    const started = performance.now();
    const reranker = await createReranker(quick(config));
    try {
      const scores = (await reranker?.rerank(PROBE.query, PROBE.documents)) ?? [];
      const ms = Math.round(performance.now() - started);
      const shown = scores.map((s) => s.toFixed(3)).join(", ");
      return {
        status: "ok",
        summary: `${info.where} ${reranker?.id}${remote ? ` at ${info.url}: reachable` : ""}, reranked a probe in ${ms} ms (scores ${shown})`,
        ...base,
        id: reranker?.id,
        reachable: remote ? true : undefined,
        scores,
        ms,
      };
    } finally {
      await reranker?.close?.();
    }
  } catch (e) {
    const unavailable = (e as { code?: string }).code === "model_server_unavailable";
    const note = unavailable ? " — answers are judged without the reranker until it is back" : "";
    return {
      status: unavailable ? "warn" : "error",
      summary: `reranker ${configured}: ${message(e)}${note}`,
      configured,
      reachable: unavailable ? false : undefined,
    };
  }
}
