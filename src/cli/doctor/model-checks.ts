/**
 * Doctor and `docchat models` on the retrieval models: which embedder and reranker are active, where they run
 * (local or remote), their model id and dimension, and whether a remote server answers. `load` embeds and
 * reranks one probe text through the real code path.
 */
import { basename, resolve } from "node:path";
import type { Config } from "../../config/index.ts";
import type { EmbedderChoice } from "../../rag/embedders/create-embedder.ts";
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

/** What the index will record at start, as far as it is known without loading the model. */
async function expectedIndexKey(choice: EmbedderChoice): Promise<{ id: string; dimension?: number }> {
  if (choice.kind === "openai") return { id: `openai:${choice.model}` };
  if (choice.kind === "gguf") {
    const { readGgufMetadata } = await import("../../models/gguf-metadata.ts");
    const { ggufModelName } = await import("../../rag/embedders/gguf.embedder.ts");
    const meta = readGgufMetadata(choice.modelPath);
    const width = meta.get(`${String(meta.get("general.architecture"))}.embedding_length`);
    return { id: `gguf:${ggufModelName(choice.modelPath)}`, dimension: typeof width === "number" ? width : undefined };
  }
  const { inspectModelFolder } = await import("../../rag/embedders/onnx-model-folder.ts");
  const folder = inspectModelFolder(choice.spec.options.modelDir);
  return { id: `onnx:${folder?.name ?? basename(choice.spec.options.modelDir)}`, dimension: folder?.hiddenSize };
}

/** A configured embedder that differs from the one the index was built with: `serve` would refuse to start. */
function indexMismatch(recorded: string | null | undefined, id: string, dimension: number | undefined): string | null {
  if (!recorded) return null;
  const at = recorded.lastIndexOf("@");
  const recordedId = at < 0 ? recorded : recorded.slice(0, at);
  const recordedDim = at < 0 ? undefined : Number(recorded.slice(at + 1));
  if (recordedId === id && (dimension === undefined || recordedDim === dimension)) return null;
  return `the index was built with "${recorded}" but the configured embedder is "${id}${dimension ? `@${dimension}` : ""}": run "docchat reindex"`;
}

export async function checkEmbedder(
  config: Config,
  opts: { load: boolean; offline?: boolean; indexEmbedder?: string | null },
): Promise<Check> {
  const configured = config.embedder;
  // What is known so far, so a failure still says which model and where.
  let sofar: Record<string, unknown> = { configured };
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
      const mismatch = indexMismatch(opts.indexEmbedder, "none", undefined);
      const base = { configured, active: "none", where: "none" };
      if (mismatch) return { status: "error", summary: `none — ${mismatch}`, ...base, index_embedder: opts.indexEmbedder };
      return { status: "ok", summary: `none — keyword-only retrieval (${why})`, ...base };
    }
    const base = {
      configured,
      active: choice.kind,
      where: info.where,
      model: info.model,
      ...(choice.kind === "openai" ? { url: choice.url, prefixes: choice.prefixes } : {}),
    };
    sofar = base;
    const expected = await expectedIndexKey(choice);
    const known = { id: expected.id, dimension: expected.dimension };
    const staticMismatch = indexMismatch(opts.indexEmbedder, expected.id, expected.dimension);
    if (staticMismatch)
      return {
        status: "error",
        summary: `${choice.kind} ${info.model}: ${staticMismatch}`,
        ...base,
        ...known,
        index_embedder: opts.indexEmbedder,
      };
    const remote = choice.kind === "openai";
    if (remote && opts.offline)
      return { status: "ok", summary: `remote ${choice.model} at ${choice.url} (not contacted: --offline)`, ...base, ...known };
    if (!remote && !opts.load) {
      const dim = expected.dimension ? `, dimension ${expected.dimension}` : "";
      return { status: "ok", summary: `local ${choice.kind} ${info.model}${dim}; not loaded (doctor --load tries it)`, ...base, ...known };
    }
    const started = performance.now();
    const embedder = await createEmbedder({ ...cfg, isolate: false });
    try {
      const v = opts.load ? await embedder?.embedQuery(PROBE.query) : undefined;
      const ms = Math.round(performance.now() - started);
      const found = { id: embedder?.id, dimension: embedder?.dimension };
      const mismatch = embedder ? indexMismatch(opts.indexEmbedder, embedder.id, embedder.dimension) : null;
      if (mismatch)
        return {
          status: "error",
          summary: `${info.where} ${embedder?.id}: ${mismatch}`,
          ...base,
          ...found,
          index_embedder: opts.indexEmbedder,
        };
      const what = `${info.where} ${embedder?.id}, dimension ${embedder?.dimension}`;
      const summary = remote
        ? `${what} at ${choice.url}: reachable${v ? `, embedded a probe in ${ms} ms` : ""}`
        : `${what}, loaded and embedded in ${ms} ms`;
      return { status: "ok", summary, ...base, ...found, reachable: remote ? true : undefined, ms };
    } finally {
      await embedder?.close?.();
    }
  } catch (e) {
    const unavailable = (e as { code?: string }).code === "model_server_unavailable";
    // An embeddings server that is down is a degraded service, not a broken one: chat answers from keywords and
    // training waits for it.
    const status: Status = unavailable ? "warn" : "error";
    const note = unavailable ? " — answers use keyword retrieval and training waits until it is back" : "";
    return { status, summary: `embedder ${configured}: ${message(e)}${note}`, ...sofar, reachable: unavailable ? false : undefined };
  }
}

export async function checkReranker(config: Config, opts: { load: boolean; offline?: boolean }): Promise<Check> {
  const configured = config.reranker;
  let sofar: Record<string, unknown> = { configured };
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
    sofar = base;
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
      ...sofar,
      reachable: unavailable ? false : undefined,
    };
  }
}
