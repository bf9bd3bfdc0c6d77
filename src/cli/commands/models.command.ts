import { findGgufModels, llmBackendConfig } from "../../chat/llm-config.ts";
import { findModelFolders } from "../../rag/embedders/onnx-model-folder.ts";
import { resolveEmbedderSpec } from "../../rag/embedders/create-embedder.ts";
import type { Command } from "../command.ts";

export const modelsCommand: Command = {
  path: ["models"],
  usage: "models [--models DIR]",
  summary: "List the embedding models (ONNX folders) and GGUF chat models found, and which ones are active.",
  options: {},
  async run(ctx) {
    const c = ctx.config;
    const spec = resolveEmbedderSpec({ kind: c.embedder, modelsDir: c.modelsDir, modelPath: c.embedderModel || undefined });
    const llm = llmBackendConfig(c);
    ctx.print({
      models_dir: c.modelsDir,
      embedding_models: findModelFolders(c.modelsDir).map((m) => ({ name: m.name, dir: m.dir, pooling: m.pooling, dtype: m.dtype })),
      gguf_models: findGgufModels(c.modelsDir),
      active_embedder: spec ? (spec.kind === "onnx" ? `onnx:${(spec.options as { modelDir: string }).modelDir}` : spec.kind) : "none (keyword-only retrieval)",
      active_llm: llm.kind === "openai" ? `openai ${llm.url} ${llm.model ?? ""}`.trim() : llm.kind === "llama" ? `llama ${llm.modelPath}` : "extractive (no model)",
    });
    return 0;
  },
};
