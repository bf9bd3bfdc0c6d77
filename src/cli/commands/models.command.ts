import { findGgufModels, llmBackendConfig } from "../../chat/llm-config.ts";
import { findGgufFiles } from "../../models/gguf-role.ts";
import { findModelFolders } from "../../rag/embedders/onnx-model-folder.ts";
import { retrievalMode } from "../../rag/retrieval-mode.ts";
import type { Command } from "../command.ts";
import { checkEmbedder, checkReranker } from "../doctor/model-checks.ts";

export const modelsCommand: Command = {
  path: ["models"],
  usage: "models [--models DIR] [--offline]",
  summary:
    "List the models found (ONNX folders; GGUF chat, embedding and reranker files) and the active embedder, reranker and answer model.",
  options: {
    offline: { type: "boolean", doc: "do not contact the embeddings or rerank server (reachability and dimension are then unknown)" },
  },
  async run(ctx) {
    const c = ctx.config;
    const offline = ctx.values.offline === true;
    const llm = llmBackendConfig(c);
    const mode = retrievalMode(c);
    const ggufs = findGgufFiles(c.modelsDir);
    const embedder = await checkEmbedder(c, { load: false, offline });
    const reranker = await checkReranker(c, { load: false, offline });
    const pick = (k: Record<string, unknown>) =>
      Object.fromEntries(
        ["status", "summary", "where", "active", "model", "url", "id", "dimension", "reachable"]
          .filter((f) => k[f] !== undefined)
          .map((f) => [f, k[f]]),
      );
    ctx.print({
      models_dir: c.modelsDir,
      embedding_models: findModelFolders(c.modelsDir).map((m) => ({ name: m.name, dir: m.dir, pooling: m.pooling, dtype: m.dtype })),
      gguf_models: findGgufModels(c.modelsDir),
      gguf_embedding_models: ggufs.filter((g) => g.role === "embedding").map((g) => g.path),
      gguf_rerankers: ggufs.filter((g) => g.role === "reranker").map((g) => g.path),
      retrieval_mode: mode.mode,
      active_embedder: mode.embedder.where === "none" ? "none (keyword-only retrieval)" : `${mode.embedder.kind}:${mode.embedder.model}`,
      embedder: pick(embedder),
      active_reranker: mode.reranker.where === "none" ? "none" : `${mode.reranker.kind}:${mode.reranker.model ?? mode.reranker.url}`,
      reranker: pick(reranker),
      active_llm:
        llm.kind === "openai"
          ? `openai ${llm.url} ${llm.model ?? ""}`.trim()
          : llm.kind === "llama"
            ? `llama ${llm.modelPath}`
            : "extractive (no model)",
    });
    return 0;
  },
};
